import { type CliCommand, passwordOption, requiredString } from '../command.js';

/**
 * `dauth user login --email … (--password … | --password-stdin)`: the developer login JWT, as
 * `POST /v1/dev-user/login_devuser` answers it, for scripted tests (`Authorization: Bearer <token>`).
 */
export const userLogin: CliCommand = {
  path: ['user', 'login'],
  summary: 'Print a login JWT ({success, token, uuid}) for scripted tests; the token is a credential',
  usage: '--email <e-mail> (--password <password> | --password-stdin)',
  needs: 'database',
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
  },
  async run(values, services, io) {
    const email = requiredString(values, 'email');
    const password = await passwordOption(values, io);
    const { token, uuid } = await services.accounts.login(email, password);
    return { success: true, token, uuid };
  },
};
