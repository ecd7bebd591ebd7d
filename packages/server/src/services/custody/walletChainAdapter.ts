import type { ChainGateway } from '../../chain/chainGateway.js';
import type { ContractCalls } from '../../chain/contractCalls.js';
import type { OperationPipeline } from '../../chain/operations/operationPipeline.js';
import type { WalletChain } from './walletChain.js';

/** The custody port over `services.chain`: its gateway, call builders and operation pipeline. */
export function walletChainOver(chain: {
  gateway: ChainGateway;
  operations: OperationPipeline;
  calls: ContractCalls;
}): WalletChain {
  const { gateway, operations, calls } = chain;
  return {
    walletAddress: async (owner, salt) => gateway.walletAddress(owner, salt),
    ownerOf: (wallet) => gateway.walletOwner(wallet),
    hasCode: (address) => gateway.isDeployed(address),
    submit: async (wallet, action, owner) => {
      const result = await operations.submitOperation({
        owner,
        salt: wallet.salt,
        sender: wallet.address,
        ...('calls' in action ? { calls: action.calls } : { callData: action.callData }),
      });
      return {
        userOpHash: result.userOpHash,
        txHash: result.txHash,
        success: result.success,
        revertReason: result.revertReason,
      };
    },
    changeOwnerCallData: (newOwner) => calls.changeOwnerCallData(newOwner),
    erc20TransferCall: (token, to, amount) => calls.erc20Transfer(token, to, amount),
  };
}
