import { defineQuerySuite } from './support/query-suite';

defineQuerySuite('hosted-postgres');
