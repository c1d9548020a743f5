import type { Learned } from '@assistant/tool-kit';

/**
 * The account the corpus is read against: what its tool results would have taught the built-in model (its
 * mail's senders, its calendar's events, its files and devices), as the families' `learn` gives them.
 */
export const CORPUS_ACCOUNT: readonly Learned[] = [
  {
    kind: 'sender',
    value: 'service@kwikfix-garage.example',
    label: 'Kwik Fix Garage <service@kwikfix-garage.example>',
  },
  {
    kind: 'sender',
    value: 'reception@citydoctors.example',
    label: 'Dr. Jane Moss <reception@citydoctors.example>',
  },
  {
    kind: 'sender',
    value: 'info@acmeplumbing.example',
    label: 'Acme Plumbing Ltd. <info@acmeplumbing.example>',
  },
  { kind: 'sender', value: 'sam@example.com', label: 'Sam Carter <sam@example.com>' },
  {
    kind: 'sender',
    value: 'rent@harbourlettings.example',
    label: 'Harbour Lettings, your landlord <rent@harbourlettings.example>',
  },
  { kind: 'sender', value: 'news@example.net', label: 'Weekly News <news@example.net>' },
  { kind: 'event', value: 'Yoga class' },
  { kind: 'event', value: 'Team sync' },
  { kind: 'event', value: 'Dentist' },
  { kind: 'event', value: 'Book club' },
  { kind: 'file', value: 'packing-list.txt', label: 'packing list' },
  { kind: 'file', value: 'notes/todo.txt', label: 'notes todo' },
  { kind: 'file', value: 'recipes/lasagne.md', label: 'recipes lasagne' },
  { kind: 'device', value: 'Kitchen Light' },
  { kind: 'device', value: 'Living Room Lamp' },
  { kind: 'device', value: 'Thermostat' },
];
