import type { LoaderOptions } from '@medusajs/framework/types';
import { parsePluginOptions } from '../../../lib/plugin-options';

/** Fails Medusa's start-up, naming the option, when the plugin is misconfigured: not at the first order. */
export default async function validateOptions({ options }: LoaderOptions<Record<string, unknown>>): Promise<void> {
  parsePluginOptions(options);
}
