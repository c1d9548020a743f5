import { z } from 'zod';
import { connectionFields, fieldLabel, readConnectionForm } from './connection-fields';

const provider = {
  settings: z.object({
    imap_host: z.string().min(1).describe('the IMAP server'),
    imap_port: z.number().int().default(993),
    imap_tls: z.boolean().default(true),
    from_address: z.email(),
    allow_hosts: z.array(z.string()).default([]),
    username: z.string().optional(),
  }),
  secrets: z.object({ password: z.string().min(1).describe('the password') }),
};

describe("a provider's connection fields", () => {
  it('are read from its schemas: labels, help, kinds, defaults, required, secrets', () => {
    expect(connectionFields(provider)).toEqual([
      {
        name: 'imap_host',
        label: 'IMAP host',
        help: 'the IMAP server',
        kind: 'text',
        required: true,
        secret: false,
      },
      { name: 'imap_port', label: 'IMAP port', kind: 'number', required: false, default: 993, secret: false },
      {
        name: 'imap_tls',
        label: 'IMAP TLS',
        kind: 'checkbox',
        required: false,
        default: true,
        secret: false,
      },
      { name: 'from_address', label: 'From address', kind: 'email', required: true, secret: false },
      {
        name: 'allow_hosts',
        label: 'Allow hosts',
        kind: 'list',
        required: false,
        default: [],
        secret: false,
      },
      { name: 'username', label: 'Username', kind: 'text', required: false, secret: false },
      {
        name: 'password',
        label: 'Password',
        help: 'the password',
        kind: 'password',
        required: true,
        secret: true,
      },
    ]);
    expect(fieldLabel('zigbee2mqtt_topic')).toBe('Zigbee2mqtt topic');
  });

  it('turn a posted form into the settings and secrets the schemas check', () => {
    const form = readConnectionForm(connectionFields(provider), {
      imap_host: ' mail.example.com ',
      imap_port: '143',
      from_address: 'ada@example.com',
      allow_hosts: 'a.lan\r\n\r\n 10.0.0.0/8 ',
      username: '',
      password: ' secret',
    });
    expect(form).toEqual({
      settings: {
        imap_host: 'mail.example.com',
        imap_port: 143,
        imap_tls: false,
        from_address: 'ada@example.com',
        allow_hosts: ['a.lan', '10.0.0.0/8'],
      },
      secrets: { password: ' secret' },
    });
    expect(provider.settings.safeParse(form.settings).success).toBe(true);
  });
});
