import { FIRST_PARTY_BINDING, loginBindingFor } from '../../services/oauth/loginBinding.js';
import { type CliCommand, optionalString, passwordOption, requiredString } from '../command.js';

/**
 * `dauth user login --email … (--password … | --password-stdin)`: the developer login JWT, as
 * `POST /v1/dev-user/login_devuser` answers it, for scripted tests (`Authorization: Bearer <token>`).
 * Every login is bound (docs/security.md, "Login binding"): to the app of `--client-id`, which it
 * then authorizes alone; without it to the first-party tools, so it manages the account and opens no app.
 */
export const userLogin: CliCommand = {
  path: ['user', 'login'],
  summary: 'Print a login JWT ({success, token, uuid}) for scripted tests; the token is a credential',
  usage: '--email <e-mail> (--password <password> | --password-stdin) [--client-id <app>]',
  needs: 'database',
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    'client-id': { type: 'string' },
  },
  async run(values, services, io) {
    const email = requiredString(values, 'email');
    const password = await passwordOption(values, io);
    const binding = await loginBindingFor(
      services.clients,
      optionalString(values, 'client-id') ?? FIRST_PARTY_BINDING,
    );
    const signIn = await services.accounts.login(email, password, binding);
    // An account with TOTP: the second step is the API's (`POST /v1/dev-user/login/mfa`, docs/mfa.md).
    if (signIn.mfaRequired) {
      return { success: true, mfa_required: true, mfa_token: signIn.mfaToken, methods: signIn.methods };
    }
    return { success: true, token: signIn.token, uuid: signIn.uuid };
  },
};
