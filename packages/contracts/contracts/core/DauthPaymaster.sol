// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {BasePaymaster} from "@account-abstraction/contracts/core/BasePaymaster.sol";
import {_packValidationData} from "@account-abstraction/contracts/core/Helpers.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {UserOperation} from "@account-abstraction/contracts/interfaces/UserOperation.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/**
 * @title DauthPaymaster
 * @notice Verifying paymaster for EntryPoint v0.6: sponsors an operation when the platform's signer signed it.
 * `paymasterAndData` = paymaster ‖ abi.encode(uint48 validUntil, uint48 validAfter) ‖ 65-byte signature over
 * the EIP-191 message of `getHash(userOp, validUntil, validAfter)`. The window is returned to the EntryPoint,
 * which rejects the operation outside it (AA32); a wrong signature is AA34.
 * @dev Unlike the v0.6 sample it keeps no per-sender counter: the hash covers the sender and its EntryPoint
 * nonce, which already makes each signature single-use, and validation writes no storage (cheaper, and the
 * paymaster needs no stake under the ERC-7562 storage rules).
 * Deposit, withdrawal and stake helpers come from BasePaymaster (`deposit`, `withdrawTo`, `getDeposit`, ...).
 */
contract DauthPaymaster is BasePaymaster {
    uint256 private constant VALID_TIMESTAMP_OFFSET = 20;
    uint256 private constant SIGNATURE_OFFSET = 84;

    address public verifyingSigner;

    event VerifyingSignerChanged(address indexed previousSigner, address indexed newSigner);

    error InvalidSigner();

    constructor(IEntryPoint anEntryPoint, address signer) BasePaymaster(anEntryPoint) {
        _setVerifyingSigner(signer);
    }

    /// @notice Rotates the platform key that authorises sponsorship. Old signatures stop validating at once.
    function setVerifyingSigner(address signer) external onlyOwner {
        _setVerifyingSigner(signer);
    }

    /**
     * @notice What the signer signs (as an EIP-191 message): every operation field but paymasterAndData and
     * signature, bound to this chain and this paymaster, and the validity window.
     */
    function getHash(UserOperation calldata userOp, uint48 validUntil, uint48 validAfter)
        public
        view
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                userOp.sender,
                userOp.nonce,
                keccak256(userOp.initCode),
                keccak256(userOp.callData),
                userOp.callGasLimit,
                userOp.verificationGasLimit,
                userOp.preVerificationGas,
                userOp.maxFeePerGas,
                userOp.maxPriorityFeePerGas,
                block.chainid,
                address(this),
                validUntil,
                validAfter
            )
        );
    }

    function parsePaymasterAndData(bytes calldata paymasterAndData)
        public
        pure
        returns (uint48 validUntil, uint48 validAfter, bytes calldata signature)
    {
        (validUntil, validAfter) =
            abi.decode(paymasterAndData[VALID_TIMESTAMP_OFFSET:SIGNATURE_OFFSET], (uint48, uint48));
        signature = paymasterAndData[SIGNATURE_OFFSET:];
    }

    function _validatePaymasterUserOp(UserOperation calldata userOp, bytes32, uint256)
        internal
        view
        override
        returns (bytes memory context, uint256 validationData)
    {
        (uint48 validUntil, uint48 validAfter, bytes calldata signature) =
            parsePaymasterAndData(userOp.paymasterAndData);
        bytes32 hash = ECDSA.toEthSignedMessageHash(getHash(userOp, validUntil, validAfter));
        // A bad signature must not revert, so the EntryPoint reports it as "AA34 signature error".
        (address signer, ECDSA.RecoverError error) = ECDSA.tryRecover(hash, signature);
        bool sigFailed = error != ECDSA.RecoverError.NoError || signer != verifyingSigner;
        // Empty context: nothing to settle after the call, so the EntryPoint skips postOp.
        return ("", _packValidationData(sigFailed, validUntil, validAfter));
    }

    function _setVerifyingSigner(address signer) private {
        if (signer == address(0)) revert InvalidSigner();
        emit VerifyingSignerChanged(verifyingSigner, signer);
        verifyingSigner = signer;
    }
}
