import { Module } from '@nestjs/common';
import { DevicesController } from './devices.controller';
import { PairingController } from './pairing.controller';
import { PairingService } from './pairing.service';

/** Phone pairing (`/pairing`) and the paired devices it creates (`/devices`). */
@Module({
  controllers: [PairingController, DevicesController],
  providers: [PairingService],
  exports: [PairingService],
})
export class DevicesModule {}
