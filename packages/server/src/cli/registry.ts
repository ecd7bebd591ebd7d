import type { CliCommand } from './command.js';
import { clientCreate } from './commands/clientCreate.js';
import { clientList } from './commands/clientList.js';
import { clientDelete, clientRotateSecret, clientUpdate } from './commands/clientLifecycle.js';
import { faucet } from './commands/faucet.js';
import { orgAccept, orgCreate, orgInvite, orgList, orgMembers } from './commands/org.js';
import { playersList, playersPregenerate, playersRevoke, playersShow } from './commands/players.js';
import { providerCreate } from './commands/providerCreate.js';
import { providerShow } from './commands/providerShow.js';
import { slotsImport } from './commands/slotsImport.js';
import { sponsorshipSet, sponsorshipShow } from './commands/sponsorship.js';
import { userCreate } from './commands/userCreate.js';
import { userLogin } from './commands/userLogin.js';
import { webhookCreate, webhookDelete, webhookList, webhookRotateSecret } from './commands/webhook.js';

/** Every `dauth` sub-command. Add a command by writing `commands/<name>.ts` and listing it here. */
export const commands: CliCommand[] = [
  userCreate,
  userLogin,
  clientCreate,
  clientList,
  clientUpdate,
  clientRotateSecret,
  clientDelete,
  sponsorshipShow,
  sponsorshipSet,
  webhookCreate,
  webhookList,
  webhookDelete,
  webhookRotateSecret,
  orgList,
  orgCreate,
  orgMembers,
  orgInvite,
  orgAccept,
  providerCreate,
  providerShow,
  faucet,
  slotsImport,
  playersList,
  playersShow,
  playersRevoke,
  playersPregenerate,
];

/** The command whose path starts `argv`, and the arguments after its path. */
export function findCommand(
  argv: string[],
  registry: CliCommand[] = commands,
): { command: CliCommand; rest: string[] } | undefined {
  const matches = registry
    .filter((c) => c.path.every((word, i) => argv[i] === word))
    .sort((a, b) => b.path.length - a.path.length);
  const command = matches[0];
  return command ? { command, rest: argv.slice(command.path.length) } : undefined;
}

export function helpText(registry: CliCommand[] = commands): string {
  const lines = registry.map((c) => `  dauth ${c.path.join(' ')} ${c.usage}\n      ${c.summary}`);
  return `Usage:\n${lines.join('\n')}\n\nConfiguration comes from the same environment as the server (DATA_DIR, DATABASE_URL, …).\nCommands marked database only run beside a running server; faucet, slots import, provider create and client update|rotate-secret|delete|sponsorship, webhook\nand players commands talk to it (--server, else PUBLIC_URL; the admin key from ADMIN_API_KEY or DATA_DIR/admin-api-key).\nOutput is JSON on stdout; errors are JSON on stderr.\n`;
}
