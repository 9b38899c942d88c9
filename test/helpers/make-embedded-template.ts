import { runAsScript } from './child-script';
import { createEmbeddedTemplate } from './embedded-template';

// globalSetup runs this in a process of its own (child-script.ts).
runAsScript(createEmbeddedTemplate);
