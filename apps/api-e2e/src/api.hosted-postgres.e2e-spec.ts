import { defineApiSuite } from './support/api-suite';

defineApiSuite('hosted-postgres');
