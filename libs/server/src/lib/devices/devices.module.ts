import { Module } from '@nestjs/common';
import { DEVICE_PAIRING } from '@assistant/server-kit';
import { DevicesController } from './devices.controller';
import { PairingController } from './pairing.controller';
import { PairingService } from './pairing.service';

/** Phone pairing (`/pairing`; the web app's pairing page through DEVICE_PAIRING) and the devices it creates. */
@Module({
  controllers: [PairingController, DevicesController],
  providers: [PairingService, { provide: DEVICE_PAIRING, useExisting: PairingService }],
  exports: [DEVICE_PAIRING],
})
export class DevicesModule {}
