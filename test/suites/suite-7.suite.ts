import { runSuite } from './suites';

runSuite(7);
