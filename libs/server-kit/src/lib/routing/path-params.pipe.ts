import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { lineSchema } from '@assistant/contracts';
import { ApiError } from '../http/api-error';

/**
 * Every path parameter of every route (`/memories/{id}`, `…/confirmations/{call_id}`): an id is one line of
 * plain characters, so one with a control character or half a character (`/memories/mem_%00`) is refused with
 * 422 naming the parameter before a handler looks it up, where U+0000 would fail PostgreSQL's statement. `@Route`
 * sets it on every route whose declared path has parameters, so that no controller can forget it (and every route
 * of the server is a `@Route`: RouteContractCheck). Not a global pipe: Nest would run it, and its dozen promises,
 * on every argument of every route, the caller's principal of `GET /me` too.
 */
@Injectable()
export class PathParamsPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'param' || typeof value !== 'string') return value;
    const field = metadata.data ?? 'path';
    const result = lineSchema(field).safeParse(value);
    if (result.success) return value;
    throw ApiError.validation(result.error.issues.map((issue) => ({ field, message: issue.message })));
  }
}
