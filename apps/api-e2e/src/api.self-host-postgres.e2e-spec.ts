import { defineApiSuite } from './support/api-suite';

defineApiSuite('self-host-postgres');
