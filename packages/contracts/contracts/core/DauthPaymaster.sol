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
 * nonce, which already makes each signature single-use, so validation writes no storage. Unlike the sample the
 * signer is rotatable, so validation reads one storage slot of its own; public bundlers accept that only from
 * a staked paymaster (ERC-7562), hence `addStake`. The deposit and stake helpers mirror BasePaymaster's.
 * The hot path reads the EntryPoint's well-formed calldata by its ABI layout instead of through the checked
 * decoder: it runs in every sponsored operation (see gas-report.md).
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
        returns (bytes memory, uint256)
    {
        if (msg.sender != address(entryPoint)) revert NotFromEntryPoint(msg.sender);
        (uint48 validUntil, uint48 validAfter, bytes calldata signature) = _parse(_paymasterAndDataOf(userOp));
        // A bad signature must not revert, so the EntryPoint reports it as "AA34 signature error".
        address signer = SignatureRecovery.recoverEthSigned(getHash(userOp, validUntil, validAfter), signature);
        uint256 validationData =
            _packValidationData(signer == address(0) || signer != verifyingSigner, validUntil, validAfter);
        // Returns (bytes context = "", validationData) directly: an empty context means the EntryPoint never
        // calls postOp, and encoding by hand saves the generic ABI encoder on this hot path.
        assembly {
            mstore(0x00, 0x40)
            mstore(0x20, validationData)
            mstore(0x40, 0)
            return(0x00, 0x60)
        }
    }

    /// @inheritdoc IPaymaster
    function postOp(PostOpMode, bytes calldata, uint256) external pure {
        revert PostOpNotExpected();
    }

    /**
     * @notice What the signer signs (as an EIP-191 message): every operation field but paymasterAndData and
     * signature, bound to this chain and this paymaster, and the validity window.
     * Equals keccak256(abi.encode(sender, nonce, keccak256(initCode), keccak256(callData), callGasLimit,
     * verificationGasLimit, preVerificationGas, maxFeePerGas, maxPriorityFeePerGas, block.chainid,
     * address(this), validUntil, validAfter)).
     */
    function getHash(UserOperation calldata userOp, uint48 validUntil, uint48 validAfter)
        public
        view
        returns (bytes32 hash)
    {
        // Assembled in scratch memory past the free pointer, reading the struct by its ABI layout (words 0-1
        // sender and nonce, 2-3 offsets of initCode and callData, 4-8 the gas fields): this runs in every
        // sponsored operation, and the checked Solidity encoding costs about twice as much.
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            let initCode := add(userOp, calldataload(add(userOp, 0x40)))
            let initCodeLength := calldataload(initCode)
            calldatacopy(ptr, add(initCode, 0x20), initCodeLength)
            let initCodeHash := keccak256(ptr, initCodeLength)
            let callData := add(userOp, calldataload(add(userOp, 0x60)))
            let callDataLength := calldataload(callData)
            calldatacopy(ptr, add(callData, 0x20), callDataLength)
            let callDataHash := keccak256(ptr, callDataLength)
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

    /// @dev `userOp.paymasterAndData` without the generic calldata checks: only the EntryPoint reaches this, and
    /// its encoding is well-formed (a length beyond calldata would only read zeros, which never verify).
    function _paymasterAndDataOf(UserOperation calldata userOp) private pure returns (bytes calldata data) {
        assembly ("memory-safe") {
            let field := add(userOp, calldataload(add(userOp, 0x120))) // word 9: offset of paymasterAndData
            data.length := calldataload(field)
            data.offset := add(field, 0x20)
        }
    }

    /// @dev paymasterAndData = paymaster (20 bytes) ‖ uint48 validUntil (32) ‖ uint48 validAfter (32) ‖ signature.
    function _parse(bytes calldata paymasterAndData)
        private
        pure
        returns (uint48 validUntil, uint48 validAfter, bytes calldata signature)
    {
        if (paymasterAndData.length < SIGNATURE_OFFSET) revert InvalidPaymasterData();
        uint256 until;
        uint256 afterTime;
        assembly ("memory-safe") {
            until := calldataload(add(paymasterAndData.offset, VALID_TIMESTAMP_OFFSET))
            afterTime := calldataload(add(paymasterAndData.offset, add(VALID_TIMESTAMP_OFFSET, 0x20)))
            signature.offset := add(paymasterAndData.offset, SIGNATURE_OFFSET)
            signature.length := sub(paymasterAndData.length, SIGNATURE_OFFSET)
        }
        // As strict as abi.decode of two uint48: the padding must be zero.
        if ((until | afterTime) > type(uint48).max) revert InvalidPaymasterData();
        return (uint48(until), uint48(afterTime), signature);
    }

    function _setVerifyingSigner(address signer) private {
        if (signer == address(0)) revert InvalidSigner();
        emit VerifyingSignerChanged(verifyingSigner, signer);
        verifyingSigner = signer;
    }
}
