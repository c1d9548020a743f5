import { defineQuerySuite } from './support/query-suite';

defineQuerySuite('self-host-sqlite');
