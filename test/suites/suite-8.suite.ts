import { runSuite } from './suites';

runSuite(8);
