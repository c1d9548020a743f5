/**
 * A route's request arguments (`@CurrentPrincipal()`, `@RouteBody()`, `@RouteQuery()`) on a real Nest + Fastify
 * app: derived from the request by `@Route`, not by Nest's parameter pipeline (issue 23, decision 0016), with the
 * same checks and the route's metadata kept.
 */
import 'reflect-metadata';
import {
  Controller,
  Module,
  Param,
  type ArgumentMetadata,
  type CanActivate,
  type ExecutionContext,
  type PipeTransform,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { ProblemFilter } from '../http/problem.filter';
import { Route, RouteBody, RouteQuery } from './route.decorator';

const caller = { userId: 'u-1', scopes: ['read:memories'] } as unknown as Principal;

@Controller()
class MemoriesController {
  @Route('createMemory')
  create(@CurrentPrincipal() principal: Principal, @RouteBody() body: unknown) {
    return { principal, body };
  }

  @Route('listMemories')
  list(@RouteQuery() query: unknown, @CurrentPrincipal() principal: Principal) {
    return { principal, query };
  }

  @Route('getMemory')
  one(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return { principal, id };
  }
}

@Module({ controllers: [MemoriesController] })
class MemoriesModule {}

/** What the access guard does for these routes: sets the caller on the request. */
class SetsCaller implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    context.switchToHttp().getRequest<{ user?: Principal }>().user = caller;
    return true;
  }
}

/** A global pipe that notes every argument Nest's parameter pipeline hands it. */
class NotesPipedArguments implements PipeTransform {
  readonly seen: string[] = [];
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    this.seen.push(metadata.type);
    return value;
  }
}

describe('@Route request arguments', () => {
  let app: NestFastifyApplication;
  const piped = new NotesPipedArguments();

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(MemoriesModule, new FastifyAdapter(), {
      logger: false,
    });
    app.useGlobalGuards(new SetsCaller());
    app.useGlobalPipes(piped);
    app.useGlobalFilters(new ProblemFilter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => app.close());
  beforeEach(() => piped.seen.splice(0));

  const inject = (options: { method: 'GET' | 'POST'; url: string; payload?: Record<string, unknown> }) =>
    app.inject(options).then((response) => ({ status: response.statusCode, body: response.json() }));

  it('hands the handler its caller and its checked body, and keeps the declared status', async () => {
    const response = await inject({
      method: 'POST',
      url: '/memories',
      payload: { content: 'tea, no sugar' },
    });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({ principal: caller, body: { content: 'tea, no sugar' } });
  });

  it('refuses a body that does not match the declared schema with 422 and its fields', async () => {
    const response = await inject({ method: 'POST', url: '/memories', payload: { content: 42 } });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'content' }] });
  });

  it('hands the handler its checked query in any parameter position, and refuses a badly encoded one', async () => {
    const listed = await inject({ method: 'GET', url: '/memories?limit=5&q=tea' });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ principal: caller, query: { limit: 5, q: 'tea' } });

    const refused = await inject({ method: 'GET', url: '/memories?q=%FF' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'validation_failed' });
  });

  it("runs none of them through Nest's parameter pipeline: only a path parameter reaches a pipe", async () => {
    await inject({ method: 'POST', url: '/memories', payload: { content: 'x' } });
    await inject({ method: 'GET', url: '/memories' });
    const one = await inject({ method: 'GET', url: '/memories/m-1' });

    expect(one.body).toEqual({ principal: caller, id: 'm-1' });
    expect(piped.seen).toEqual(['param']);
  });

  it('keeps the handler its name', () => {
    expect(MemoriesController.prototype.create.name).toBe('create');
  });
});
