import { Controller } from '@nestjs/common';
import type { ToolInfo } from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route } from '@assistant/server-kit';
import { ToolCatalog } from './tool-catalog';

@Controller()
export class ToolsController {
  constructor(private readonly catalog: ToolCatalog) {}

  @Route('listTools')
  async list(@CurrentPrincipal() p: Principal): Promise<{ data: ToolInfo[] }> {
    return { data: await this.catalog.list(p.userId) };
  }
}
