import { runSuite } from './suites';

runSuite(9);
