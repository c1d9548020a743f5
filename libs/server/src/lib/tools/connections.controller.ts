import { Controller, Param } from '@nestjs/common';
import type { CreateConnection, UpdateConnection } from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route, RouteBody } from '@assistant/server-kit';
import { ConnectionsService } from './connections.service';

@Controller()
export class ConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  @Route('listConnections')
  list(@CurrentPrincipal() p: Principal) {
    return this.connections.list(p.userId);
  }

  @Route('createConnection')
  create(@CurrentPrincipal() p: Principal, @RouteBody() body: CreateConnection) {
    return this.connections.create(p.userId, body);
  }

  @Route('updateConnection')
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @RouteBody() body: UpdateConnection) {
    return this.connections.update(p.userId, id, body);
  }

  @Route('deleteConnection')
  async delete(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.connections.delete(p.userId, id);
  }
}
