import { type CliCommand, optionalString, requiredString, UsageError } from '../command.js';

/** `dauth user create --email … --password … [--nickname …]` (or `--password-stdin`). */
export const userCreate: CliCommand = {
  path: ['user', 'create'],
  summary: 'Create a user (developer) account',
  usage: '--email <e-mail> (--password <password> | --password-stdin) [--nickname <name>]',
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    nickname: { type: 'string' },
  },
  async run(values, services, io) {
    const email = requiredString(values, 'email');
    let password = optionalString(values, 'password');
    if (values['password-stdin'] === true) {
      if (password !== undefined) throw new UsageError('give --password or --password-stdin, not both');
      password = (await io.readStdin()).replace(/\r?\n$/, '');
    }
    if (password === undefined) throw new UsageError('--password (or --password-stdin) is required');
    const user = await services.accounts.register({
      email,
      password,
      nickname: optionalString(values, 'nickname'),
    });
    return { success: true, uuid: String(user.userUuid), email: user.email, nickname: user.nickname };
  },
};
