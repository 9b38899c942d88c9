import { runSuite } from './suites';

runSuite(1);
