import { OperatorError } from '@assistant/contracts';

/** A setting or resource the operator must fix (bad value, unreachable database, taken port): one line, no stack. */
export class ConfigError extends OperatorError {}
