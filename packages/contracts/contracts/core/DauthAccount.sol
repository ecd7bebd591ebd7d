// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {IAccount} from "@account-abstraction/contracts/interfaces/IAccount.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {UserOperation} from "@account-abstraction/contracts/interfaces/UserOperation.sol";
import {SignatureRecovery} from "../utils/SignatureRecovery.sol";

/**
 * @title DauthAccount
 * @notice ERC-4337 (EntryPoint v0.6) wallet owned by one EOA. Every wallet is an EIP-1167 minimal proxy made by
 * DauthAccountFactory whose runtime code carries the first owner in its last 20 bytes. Reading the owner from
 * code instead of storage is what makes deployment cheap: creating a wallet writes no storage at all.
 * `changeOwner` stores a replacement owner; from then on storage wins, and the address never changes.
 */
contract DauthAccount is IAccount {
    /// @dev validationData for a bad signature, as the EntryPoint expects it.
    uint256 internal constant SIG_VALIDATION_FAILED = 1;
    /// @dev The first owner follows the 45-byte EIP-1167 runtime in the proxy's code.
    uint256 internal constant OWNER_CODE_OFFSET = 45;

    IEntryPoint public immutable entryPoint;

    /// @dev Owner installed by changeOwner; zero while the first owner (in code) holds the wallet.
    address private _ownerOverride;

    event OwnerChanged(address indexed previousOwner, address indexed newOwner);

    error Unauthorized(address caller);
    error InvalidOwner(address newOwner);
    error ArrayLengthMismatch();

    modifier onlyOwnerOrEntryPoint() {
        if (msg.sender != address(entryPoint) && msg.sender != owner()) revert Unauthorized(msg.sender);
        _;
    }

    constructor(IEntryPoint anEntryPoint) {
        entryPoint = anEntryPoint;
        // The implementation is only ever used through proxies. Owning itself, it has no key that could sign,
        // so nobody can operate it directly.
        _ownerOverride = address(this);
    }

    receive() external payable {}

    /// @notice The EOA whose signature controls this wallet.
    function owner() public view returns (address) {
        address replaced = _ownerOverride;
        return replaced != address(0) ? replaced : _firstOwner();
    }

    /// @notice This wallet's next EntryPoint nonce (key 0).
    function getNonce() external view returns (uint256) {
        return entryPoint.getNonce(address(this), 0);
    }

    /// @inheritdoc IAccount
    function validateUserOp(UserOperation calldata userOp, bytes32 userOpHash, uint256 missingAccountFunds)
        external
        returns (uint256 validationData)
    {
        if (msg.sender != address(entryPoint)) revert Unauthorized(msg.sender);
        // A bad signature must not revert: the EntryPoint turns SIG_VALIDATION_FAILED into "AA24 signature error".
        address signer = SignatureRecovery.recoverEthSigned(userOpHash, _signatureOf(userOp));
        if (signer == address(0) || signer != owner()) validationData = SIG_VALIDATION_FAILED;
        if (missingAccountFunds != 0) {
            // Prefund without a paymaster. The EntryPoint checks its deposit itself, so the result is ignored.
            (bool paid,) = payable(msg.sender).call{value: missingAccountFunds}("");
            (paid);
        }
    }

    /// @notice Calls `dest` with `value` wei and `func` as call data; reverts with the callee's reason.
    function execute(address dest, uint256 value, bytes calldata func) external onlyOwnerOrEntryPoint {
        _call(dest, value, func);
    }

    /// @notice Several calls in order, all or nothing. `value` may be empty (no wei sent) or one entry per call.
    function executeBatch(address[] calldata dest, uint256[] calldata value, bytes[] calldata func)
        external
        onlyOwnerOrEntryPoint
    {
        if (dest.length != func.length || (value.length != 0 && value.length != func.length)) {
            revert ArrayLengthMismatch();
        }
        for (uint256 i = 0; i < dest.length; ++i) {
            _call(dest[i], value.length == 0 ? 0 : value[i], func[i]);
        }
    }

    /**
     * @notice Hands the wallet to `newOwner`; the address stays the same.
     * @dev Callable by the EntryPoint (a user operation the current owner signed) or by the wallet itself
     * (`execute` from the owner); either way the current owner authorised it.
     */
    function changeOwner(address newOwner) external {
        if (msg.sender != address(entryPoint) && msg.sender != address(this)) revert Unauthorized(msg.sender);
        if (newOwner == address(0) || newOwner == address(this)) revert InvalidOwner(newOwner);
        emit OwnerChanged(owner(), newOwner);
        _ownerOverride = newOwner;
    }

    function _firstOwner() internal view returns (address first) {
        assembly ("memory-safe") {
            // Scratch space (0x00-0x3f) is free to use between statements.
            extcodecopy(address(), 0x00, OWNER_CODE_OFFSET, 20)
            first := shr(96, mload(0x00))
        }
    }

    /// @dev `userOp.signature` without the generic calldata checks: only the EntryPoint calls validateUserOp
    /// and its encoding is well-formed; a length beyond calldata only yields zero bytes, which never verify.
    function _signatureOf(UserOperation calldata userOp) private pure returns (bytes calldata signature) {
        assembly ("memory-safe") {
            let field := add(userOp, calldataload(add(userOp, 0x140))) // word 10: offset of `signature`
            signature.length := calldataload(field)
            signature.offset := add(field, 0x20)
        }
    }

    /// @dev Calls without copying the callee's return data unless it reverted (then bubbled up unchanged).
    function _call(address target, uint256 value, bytes calldata data) private {
        assembly ("memory-safe") {
            let input := mload(0x40)
            calldatacopy(input, data.offset, data.length)
            if iszero(call(gas(), target, value, input, data.length, 0, 0)) {
                returndatacopy(input, 0, returndatasize())
                revert(input, returndatasize())
            }
        }
    }
}
