/**
 * Plain value types of the chain layer. They are template-literal aliases, so services can hold and pass
 * addresses and call data without importing viem (whose types are structurally the same).
 */
export type Address = `0x${string}`;
export type Hex = `0x${string}`;
export type Hash = `0x${string}`;

/** One call a wallet makes: `to.call{value}(data)`. */
export interface Call {
  to: Address;
  /** Wei sent with the call; 0 when omitted. */
  value?: bigint;
  /** Call data; `0x` (a plain transfer) when omitted. */
  data?: Hex;
}

/** The deployed contract set, keyed as `GET /v1/chain/info` names them. */
export interface ContractAddresses {
  entry_point: Address;
  account_factory: Address;
  paymaster: Address;
  dex: Address;
  content_token: Address;
  token: Address;
}

/** What the service tells the world about its chain. */
export interface ChainInfo {
  chainId: number;
  contracts: ContractAddresses;
  /** The embedded anvil's JSON-RPC URL; undefined for an external node (its URL may carry credentials). */
  rpcUrl: string | undefined;
  kind: 'embedded' | 'external';
}
