import { Args, Command } from '@oclif/core';
import { CHAT_FLAGS, CHAT_TEXT_ARGUMENT } from '../chat/chat-flags';
import { describeExitCodes } from '../chat/exit-codes';
import { booleanFlag, directoryFlag, stringFlag } from '../lib/oclif-flags';

export default class Chat extends Command {
  static override summary = 'Ask the assistant something and stream the answer.';

  static override description = `Runs one query against an Assistant server and writes the answer to stdout as it comes, ending with a newline. Tool calls and saved memories are shown on stderr when it is a terminal, then the discussion id, so that you can continue the conversation with --discussion.

By default it talks to the server on this machine (http://127.0.0.1:7747) with the token that "assistant serve" wrote to <data-dir>/credentials.json: nothing to configure. For another server give --url and --token, or set ASSISTANT_BASE_URL and ASSISTANT_API_TOKEN.

The exit status is 0 only when the query completed and every action it took was done; anything else prints one line on stderr and exits non-zero:
${describeExitCodes()}`;

  static override examples = [
    {
      description: 'Ask the local server to remember something',
      command: `<%= config.bin %> <%= command.id %> "remember that my sister's birthday is on March 3"`,
    },
    {
      description: 'Continue a discussion',
      command: `<%= config.bin %> <%= command.id %> --discussion dsc_2mXb8 "when is my sister's birthday?"`,
    },
    {
      description: 'Read the question from stdin',
      command: 'cat notes.txt | <%= config.bin %> <%= command.id %> -',
    },
    {
      description: 'Print every event as one JSON object a line',
      command: '<%= config.bin %> <%= command.id %> --json "remember that I like green tea" | jq .type',
    },
    {
      description: 'Ask another server with a personal token',
      command:
        'ASSISTANT_API_TOKEN=asp_… <%= config.bin %> <%= command.id %> --url https://assistant.example.com "hello"',
    },
  ];

  static override args = {
    text: Args.string({ description: CHAT_TEXT_ARGUMENT }),
  };

  static override flags = {
    json: booleanFlag(CHAT_FLAGS.json),
    yes: booleanFlag(CHAT_FLAGS.yes),
    discussion: stringFlag(CHAT_FLAGS.discussion),
    model: stringFlag(CHAT_FLAGS.model),
    tools: stringFlag(CHAT_FLAGS.tools),
    url: stringFlag(CHAT_FLAGS.url),
    token: stringFlag(CHAT_FLAGS.token),
    'data-dir': directoryFlag(CHAT_FLAGS['data-dir']),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Chat);
    // Loaded here, not at the top, so that `assistant --help` does not load the client.
    const { runChat } = await import('../chat/chat-run.js');
    const outcome = await runChat(args.text, flags);
    if (outcome.message) process.stderr.write(`assistant: ${outcome.message}\n`);
    if (outcome.code !== 0) this.exit(outcome.code);
  }
}
