import type { IssuedToken } from '@assistant/auth';

/**
 * Claims a pairing code for a new device (a phone that scanned `assistant pair`'s QR code): the web app's pairing
 * page calls it, the devices feature provides it. One and the same claim as `POST /pairing/claim`.
 */
export interface DevicePairing {
  claim(code: string, deviceName: string): Promise<IssuedToken>;
}

export const DEVICE_PAIRING = Symbol('DEVICE_PAIRING');
