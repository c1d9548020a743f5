import { Controller, Param } from '@nestjs/common';
import type { ClaimedDevice, ClaimPairingCode, CreatedPairingCode, Pairing } from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route, RouteBody } from '@assistant/server-kit';
import { presentDevice } from './device.presenter';
import { PairingService } from './pairing.service';

/** Phone pairing. The rules live in PairingService; this only translates HTTP. */
@Controller()
export class PairingController {
  constructor(private readonly pairing: PairingService) {}

  @Route('createPairingCode')
  async create(@CurrentPrincipal() p: Principal): Promise<CreatedPairingCode> {
    const { record, code } = await this.pairing.create(p);
    return { id: record.id, code, expires_at: record.expiresAt.toISOString() };
  }

  @Route('getPairingCode')
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<Pairing> {
    const { record, state, device } = await this.pairing.get(p.userId, id);
    return {
      id: record.id,
      status: state,
      expires_at: record.expiresAt.toISOString(),
      ...(device ? { device: presentDevice(device) } : {}),
    };
  }

  /** Public: the code in the body is the credential. */
  @Route('claimPairingCode')
  async claim(@RouteBody() body: ClaimPairingCode): Promise<ClaimedDevice> {
    const issued = await this.pairing.claim(body.code, body.device_name);
    return { token: issued.secret, device: presentDevice(issued.record) };
  }
}
