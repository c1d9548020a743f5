import type { Device } from '@assistant/contracts';
import type { TokenEntity } from '@assistant/storage';
import { presentToken } from '../tokens/token.presenter';

/** A device is its device token's record: what `/devices` lists, never the secret. */
export function presentDevice(t: TokenEntity): Device {
  return presentToken(t);
}
