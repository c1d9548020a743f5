import { ProblemError } from '@assistant/contracts';

/** A model that is not configured, or cannot be reached: `model_unavailable` (SPEC §5). */
export class ModelUnavailableError extends ProblemError {
  constructor(detail: string) {
    super('model_unavailable', detail);
  }
}
