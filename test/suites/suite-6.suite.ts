import { runSuite } from './suites';

runSuite(6);
