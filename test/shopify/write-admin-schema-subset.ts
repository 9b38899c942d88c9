import { bulkOrdersQuery } from '../../connectors/shopify/bulk-orders';
import { runAsScript } from '../helpers/child-script';
import { runDir } from '../helpers/scratch-space';
import { writeAdminSchemaSubset } from './admin-schema';
import { connectorDocuments } from './connector-documents';

// globalSetup runs this in a process of its own (child-script.ts): the fake Shopify's schema subset.
runAsScript(() => writeAdminSchemaSubset(runDir(), [...connectorDocuments().map(({ text }) => text), bulkOrdersQuery('2026-01-01')]));
