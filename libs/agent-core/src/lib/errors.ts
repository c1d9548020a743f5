/** A model that is not configured, or cannot be reached: `model_unavailable` (SPEC §5). */
export class ModelUnavailableError extends Error {
  readonly code = 'model_unavailable';
  constructor(message: string) {
    super(message);
    this.name = 'ModelUnavailableError';
  }
}
