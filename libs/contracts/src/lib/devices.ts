import { z } from 'zod';
import { LIMITS } from './limits';
import { lineSchema, listEnvelopeSchema, timestampSchema } from './common';
import { scopeSchema } from './scopes';

/** A paired phone: a device token of the account (SPEC §2), never its secret. */
export const deviceSchema = z
  .object({
    id: z.string(),
    name: z.string().describe('the name the phone gave when it claimed its pairing code'),
    scopes: z.array(scopeSchema),
    /** The first characters of the secret, so that a user can tell devices apart. */
    token_prefix: z.string(),
    created_at: timestampSchema,
    expires_at: timestampSchema
      .nullable()
      .describe('never later than the token that created the pairing code; null: no expiry'),
    last_used_at: timestampSchema.nullable(),
  })
  .meta({ id: 'Device' });
export type Device = z.infer<typeof deviceSchema>;

export const deviceListSchema = listEnvelopeSchema(deviceSchema).meta({ id: 'DeviceList' });

/** The reply of `POST /pairing`: the only time the code is shown. */
export const createdPairingCodeSchema = z
  .object({
    id: z.string(),
    code: z
      .string()
      .describe(
        'Shown once: 8 characters as `ABCD-EFGH`, typed into the phone (with or without the dash, in any case) or read from a QR code',
      ),
    expires_at: timestampSchema,
  })
  .meta({ id: 'CreatedPairingCode' });
export type CreatedPairingCode = z.infer<typeof createdPairingCodeSchema>;

export const pairingStatusSchema = z
  .enum(['waiting', 'claimed', 'expired'])
  .describe('waiting for a phone; claimed by one (see device); or expired unclaimed');
export type PairingStatus = z.infer<typeof pairingStatusSchema>;

/** `GET /pairing/{id}`: where a pairing code stands, for the CLI that waits for a phone to claim it. */
export const pairingSchema = z
  .object({
    id: z.string(),
    status: pairingStatusSchema,
    expires_at: timestampSchema,
    device: deviceSchema
      .optional()
      .describe('the phone that claimed the code, while its token is not revoked'),
  })
  .meta({ id: 'Pairing' });
export type Pairing = z.infer<typeof pairingSchema>;

/** `POST /pairing/claim`: a phone presents the code it was shown; the code is the credential. */
export const claimPairingCodeSchema = z
  .strictObject({
    // Any string: a code of the wrong shape gets the same answer as a wrong one, so that no answer tells them apart.
    code: z.string().max(64, { error: 'code must be at most 64 characters' }),
    device_name: lineSchema('device_name')
      .trim()
      .min(1, { error: 'device_name must not be empty' })
      .max(LIMITS.maxTokenNameChars, {
        error: `device_name must be at most ${LIMITS.maxTokenNameChars} characters`,
      }),
  })
  .meta({ id: 'ClaimPairingCode' });
export type ClaimPairingCode = z.infer<typeof claimPairingCodeSchema>;

/** The reply of `POST /pairing/claim`: the device token, shown this once, and the device it belongs to. */
export const claimedDeviceSchema = z
  .object({
    token: z.string().describe('The device token (`asd_…`). Shown once; store it now.'),
    device: deviceSchema,
  })
  .meta({ id: 'ClaimedDevice' });
export type ClaimedDevice = z.infer<typeof claimedDeviceSchema>;
