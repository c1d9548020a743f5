import { Module, type DynamicModule } from '@nestjs/common';
import { DiscussionsController } from './discussions.controller';
import { DiscussionsService } from './discussions.service';

@Module({})
export class DiscussionsModule {
  /** @param queries the queries module: deleting a discussion cancels its runs first. */
  static register(queries: DynamicModule): DynamicModule {
    return {
      module: DiscussionsModule,
      imports: [queries],
      controllers: [DiscussionsController],
      providers: [DiscussionsService],
    };
  }
}
