import { Module } from '@medusajs/framework/utils';
import validateOptions from './loaders/validate-options';
import ReferralsModuleService from './service';

/** Resolve it from the container under this name: `container.resolve(REFERRALS_MODULE)`. */
export const REFERRALS_MODULE = 'referrals';

export default Module(REFERRALS_MODULE, { service: ReferralsModuleService, loaders: [validateOptions] });
