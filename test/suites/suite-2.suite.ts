import { runSuite } from './suites';

runSuite(2);
