/** An error that carries the HTTP status and machine-readable code it should be reported with. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new AppError(400, 'bad_request', message, details);
export const notFound = (message = 'Not Found') => new AppError(404, 'not_found', message);
