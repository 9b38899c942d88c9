import { runSuite } from './suites';

runSuite(4);
