import { runSuite } from './suites';

runSuite(5);
