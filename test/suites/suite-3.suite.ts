import { runSuite } from './suites';

runSuite(3);
