import { z } from 'zod';
import { chooseConnection, takeConnectionArgument, withConnectionArgument } from './connection-choice';
import { defineTool, ToolInputError } from './define-tool';

const work = { name: 'Work', isDefault: false, provider: 'imap' };
const personal = { name: 'Personal', isDefault: true, provider: 'imap' };
const search = { name: 'Search', isDefault: true, provider: 'searxng' };
const everyone = () => true;

describe('the connection a tool call goes through', () => {
  it('is the default when the call names none, else the first that can serve the tool', () => {
    expect(chooseConnection('email_search', 'email', undefined, [work, personal], everyone)).toBe(personal);
    expect(
      chooseConnection('web_fetch', 'web', undefined, [search, work], (c) => c.provider !== 'searxng'),
    ).toBe(work);
  });

  it('is the one the call names, whatever its case, or the one whose name holds its words (or is held by them)', () => {
    expect(chooseConnection('email_search', 'email', 'work', [work, personal], everyone)).toBe(work);
    const workMail = { ...work, name: 'Work mail' };
    const workCalendar = { ...work, name: 'Work calendar' };
    expect(chooseConnection('email_search', 'email', 'WORK', [workMail, personal], everyone)).toBe(workMail);
    expect(chooseConnection('email_search', 'email', 'my work account', [work, personal], everyone)).toBe(
      work,
    );
    expect(() =>
      chooseConnection('email_search', 'email', 'work', [workMail, workCalendar], everyone),
    ).toThrow(/no email connection named "work"; the account's are: Work mail, Work calendar/);
  });

  it('is a clear error listing the names when the call names one the account does not have', () => {
    expect(() => chooseConnection('email_search', 'email', 'Home', [work, personal], everyone)).toThrow(
      new ToolInputError('there is no email connection named "Home"; the account\'s are: Work, Personal'),
    );
    expect(() =>
      chooseConnection('web_fetch', 'web', 'search', [search, work], (c) => c.provider !== 'searxng'),
    ).toThrow(/the web connection "Search" cannot do web_fetch; these can: Work/);
  });

  it("is named in every family tool's schema by one optional argument, taken out before the tool sees its input", () => {
    const tool = defineTool<unknown>()({
      name: 'email_search',
      description: 'search',
      input: z.object({ query: z.string() }),
      scope: 'read:emails',
      handler: async (input) => input,
    });
    const offered = withConnectionArgument(tool, 'email', [work, personal]);
    const schema = z.toJSONSchema(offered.input, { io: 'input' }) as {
      properties: Record<string, { description?: string }>;
      required?: string[];
    };
    expect(schema.required).toEqual(['query']);
    expect(schema.properties.connection.description).toContain('Work, Personal (the default)');
    expect(offered.input.parse({ query: 'x', connection: 'Work' })).toEqual({
      query: 'x',
      connection: 'Work',
    });
    expect(takeConnectionArgument({ query: 'x', connection: ' Work ' })).toEqual({
      named: 'Work',
      rest: { query: 'x' },
    });
    expect(Object.keys(tool.input.shape)).toEqual(['query']);
  });
});
