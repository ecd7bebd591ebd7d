import { type CliCommand, optionalString, passwordOption, requiredString } from '../command.js';

/** `dauth user create --email … --password … [--nickname …]` (or `--password-stdin`). */
export const userCreate: CliCommand = {
  path: ['user', 'create'],
  summary: 'Create a user (developer) account (database only: runs beside the server)',
  needs: 'database',
  usage: '--email <e-mail> (--password <password> | --password-stdin) [--nickname <name>]',
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    nickname: { type: 'string' },
  },
  async run(values, services, io) {
    const email = requiredString(values, 'email');
    const password = await passwordOption(values, io);
    const user = await services.accounts.register({
      email,
      password,
      nickname: optionalString(values, 'nickname'),
    });
    return { success: true, uuid: String(user.userUuid), email: user.email, nickname: user.nickname };
  },
};
