// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {Create2} from "@openzeppelin/contracts/utils/Create2.sol";
import {DauthAccount} from "./DauthAccount.sol";

/**
 * @title DauthAccountFactory
 * @notice CREATE2 factory of DauthAccount wallets, used by the EntryPoint through a first operation's initCode.
 * A wallet's address is `keccak256(0xff ++ factory ++ salt ++ keccak256(accountCreationCode(owner)))[12:]`:
 * the salt is W_SALT / C_SALT as given, and the first owner is part of the creation code.
 */
contract DauthAccountFactory {
    DauthAccount public immutable accountImplementation;

    error InvalidOwner();

    constructor(IEntryPoint entryPoint) {
        accountImplementation = new DauthAccount(entryPoint);
    }

    /**
     * @notice Deploys the wallet of (`owner`, `salt`), or returns it if it exists, so an initCode that raced a
     * deployment still resolves to the right address. No event: the EntryPoint emits AccountDeployed.
     */
    function createAccount(address owner, uint256 salt) external returns (DauthAccount) {
        if (owner == address(0)) revert InvalidOwner();
        bytes memory code = accountCreationCode(owner);
        address account = Create2.computeAddress(bytes32(salt), keccak256(code));
        if (account.code.length == 0) Create2.deploy(0, bytes32(salt), code);
        return DauthAccount(payable(account));
    }

    /// @notice Counterfactual address of the wallet of (`owner`, `salt`); `owner` is its first owner.
    function getAddress(address owner, uint256 salt) external view returns (address) {
        return Create2.computeAddress(bytes32(salt), keccak256(accountCreationCode(owner)));
    }

    /**
     * @notice Creation code of the wallet of `owner`: returns a 65-byte runtime = the EIP-1167 proxy to
     * accountImplementation (45 bytes) followed by `owner` (20 bytes, data the proxy never executes).
     */
    function accountCreationCode(address owner) public view returns (bytes memory) {
        return abi.encodePacked(
            hex"3d604180600a3d3981f3", // copy the 0x41-byte runtime that follows and return it
            hex"363d3d373d3d3d363d73",
            address(accountImplementation),
            hex"5af43d82803e903d91602b57fd5bf3",
            owner
        );
    }
}
