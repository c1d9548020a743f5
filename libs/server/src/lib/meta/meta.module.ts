import { Module } from '@nestjs/common';
import { OpenApiController } from './meta.controller';

@Module({ controllers: [OpenApiController] })
export class MetaModule {}
