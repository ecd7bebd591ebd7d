// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {_packValidationData} from "@account-abstraction/contracts/core/Helpers.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {IPaymaster} from "@account-abstraction/contracts/interfaces/IPaymaster.sol";
import {UserOperation} from "@account-abstraction/contracts/interfaces/UserOperation.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {SignatureRecovery} from "../utils/SignatureRecovery.sol";

/**
 * @title DauthPaymaster
 * @notice Verifying paymaster for EntryPoint v0.6: sponsors an operation when the platform's signer signed it.
 * `paymasterAndData` = paymaster ‖ abi.encode(uint48 validUntil, uint48 validAfter) ‖ 65-byte signature over
 * the EIP-191 message of `getHash(userOp, validUntil, validAfter)`. The window is returned to the EntryPoint,
 * which rejects the operation outside it (AA32); a wrong signature is AA34.
 * @dev Unlike the v0.6 sample it keeps no per-sender counter: the hash covers the sender and its EntryPoint
 * nonce, which already makes each signature single-use, and validation writes no storage (cheaper, and no
 * stake is needed under the ERC-7562 storage rules). The deposit and stake helpers mirror BasePaymaster's.
 */
contract DauthPaymaster is IPaymaster, Ownable {
    uint256 private constant VALID_TIMESTAMP_OFFSET = 20;
    uint256 private constant SIGNATURE_OFFSET = 84;

    IEntryPoint public immutable entryPoint;
    address public verifyingSigner;

    event VerifyingSignerChanged(address indexed previousSigner, address indexed newSigner);

    error NotFromEntryPoint(address caller);
    error InvalidSigner();
    error InvalidPaymasterData();
    error PostOpNotExpected();

    constructor(IEntryPoint anEntryPoint, address signer) {
        entryPoint = anEntryPoint;
        _setVerifyingSigner(signer);
    }

    /// @inheritdoc IPaymaster
    function validatePaymasterUserOp(UserOperation calldata userOp, bytes32, uint256)
        external
        view
        returns (bytes memory context, uint256 validationData)
    {
        if (msg.sender != address(entryPoint)) revert NotFromEntryPoint(msg.sender);
        (uint48 validUntil, uint48 validAfter, bytes calldata signature) = _parse(userOp.paymasterAndData);
        // A bad signature must not revert, so the EntryPoint reports it as "AA34 signature error".
        address signer = SignatureRecovery.recoverEthSigned(getHash(userOp, validUntil, validAfter), signature);
        bool sigFailed = signer == address(0) || signer != verifyingSigner;
        // The context stays empty: nothing to settle after the call, so the EntryPoint never calls postOp.
        return (context, _packValidationData(sigFailed, validUntil, validAfter));
    }

    /// @inheritdoc IPaymaster
    function postOp(PostOpMode, bytes calldata, uint256) external pure {
        revert PostOpNotExpected();
    }

    /**
     * @notice What the signer signs (as an EIP-191 message): every operation field but paymasterAndData and
     * signature, bound to this chain and this paymaster, and the validity window.
     */
    function getHash(UserOperation calldata userOp, uint48 validUntil, uint48 validAfter)
        public
        view
        returns (bytes32 hash)
    {
        bytes calldata initCode = userOp.initCode;
        bytes calldata callData = userOp.callData;
        // Equals keccak256(abi.encode(sender, nonce, keccak256(initCode), keccak256(callData), callGasLimit,
        // verificationGasLimit, preVerificationGas, maxFeePerGas, maxPriorityFeePerGas, block.chainid,
        // address(this), validUntil, validAfter)), assembled in scratch memory past the free pointer: this runs
        // in every sponsored operation, and the checked Solidity encoding costs about twice as much.
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            calldatacopy(ptr, initCode.offset, initCode.length)
            let initCodeHash := keccak256(ptr, initCode.length)
            calldatacopy(ptr, callData.offset, callData.length)
            let callDataHash := keccak256(ptr, callData.length)
            // Struct words 0-1 are sender and nonce, words 4-8 the five gas fields (static, in place).
            calldatacopy(ptr, userOp, 0x40)
            mstore(add(ptr, 0x40), initCodeHash)
            mstore(add(ptr, 0x60), callDataHash)
            calldatacopy(add(ptr, 0x80), add(userOp, 0x80), 0xa0)
            mstore(add(ptr, 0x120), chainid())
            mstore(add(ptr, 0x140), address())
            mstore(add(ptr, 0x160), validUntil)
            mstore(add(ptr, 0x180), validAfter)
            hash := keccak256(ptr, 0x1a0)
        }
    }

    /// @notice Splits paymasterAndData into its validity window and signature (reverts when shorter than 84 bytes).
    function parsePaymasterAndData(bytes calldata paymasterAndData)
        external
        pure
        returns (uint48 validUntil, uint48 validAfter, bytes calldata signature)
    {
        return _parse(paymasterAndData);
    }

    // ----- administration -----

    /// @notice Rotates the platform key that authorises sponsorship. Old signatures stop validating at once.
    function setVerifyingSigner(address signer) external onlyOwner {
        _setVerifyingSigner(signer);
    }

    /// @notice Adds msg.value to this paymaster's deposit at the EntryPoint, which pays for sponsored gas.
    function deposit() external payable {
        entryPoint.depositTo{value: msg.value}(address(this));
    }

    function withdrawTo(address payable withdrawAddress, uint256 amount) external onlyOwner {
        entryPoint.withdrawTo(withdrawAddress, amount);
    }

    function getDeposit() external view returns (uint256) {
        return entryPoint.balanceOf(address(this));
    }

    function addStake(uint32 unstakeDelaySec) external payable onlyOwner {
        entryPoint.addStake{value: msg.value}(unstakeDelaySec);
    }

    function unlockStake() external onlyOwner {
        entryPoint.unlockStake();
    }

    function withdrawStake(address payable withdrawAddress) external onlyOwner {
        entryPoint.withdrawStake(withdrawAddress);
    }

    // ----- internals -----

    function _parse(bytes calldata paymasterAndData)
        private
        pure
        returns (uint48 validUntil, uint48 validAfter, bytes calldata signature)
    {
        if (paymasterAndData.length < SIGNATURE_OFFSET) revert InvalidPaymasterData();
        (validUntil, validAfter) =
            abi.decode(paymasterAndData[VALID_TIMESTAMP_OFFSET:SIGNATURE_OFFSET], (uint48, uint48));
        signature = paymasterAndData[SIGNATURE_OFFSET:];
    }

    function _setVerifyingSigner(address signer) private {
        if (signer == address(0)) revert InvalidSigner();
        emit VerifyingSignerChanged(verifyingSigner, signer);
        verifyingSigner = signer;
    }
}
