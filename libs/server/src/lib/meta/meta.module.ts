import { Module } from '@nestjs/common';
import { HealthController, OpenApiController } from './meta.controller';

@Module({ controllers: [OpenApiController, HealthController] })
export class MetaModule {}
