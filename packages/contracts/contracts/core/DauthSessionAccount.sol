// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {IAccount} from "@account-abstraction/contracts/interfaces/IAccount.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {UserOperation} from "@account-abstraction/contracts/interfaces/UserOperation.sol";
import {SignatureRecovery} from "../utils/SignatureRecovery.sol";

interface IDauthAccountExecute {
    function execute(address dest, uint256 value, bytes calldata func) external;
}

/**
 * @title DauthSessionAccount
 * @notice ERC-4337 (EntryPoint v0.6) wallet of one owner EOA that also accepts operations signed by session keys
 * the owner registered, each within its policy: allowed (target, selector) pairs, a per-call and a per-day native
 * value cap, per-day caps of ERC-20 `transfer`/`approve` amounts on listed tokens, an expiry.
 *
 * Existing DauthAccount wallets are EIP-1167 proxies to an immutable implementation, so their code can never
 * change. They join by handing their ownership to a DauthSessionAccount whose immutable `vault` is that wallet
 * (`changeOwner(sessionAccount)`, signed by the wallet's owner): every call is then made by the vault, so the
 * wallet's address, funds and identity stay, and its operations go through this contract. With `vault` zero
 * the calls are made by this contract itself (a new wallet).
 *
 * Every policy check happens in validateUserOp, reading and writing only this account's own storage (ERC-7562
 * STO-010) and using no banned opcode: the day is named by the signature and bound by the validity window the
 * EntryPoint enforces, so no TIMESTAMP is read. An operation outside the policy fails validation, and the
 * EntryPoint's handleOps reverts whole: nothing changes, not even the nonce or the counters.
 */
contract DauthSessionAccount is IAccount {
    /// @dev validationData for a bad signature, as the EntryPoint expects it.
    uint256 internal constant SIG_VALIDATION_FAILED = 1;
    /// @dev Session signature = key (20) ‖ day index (6, big-endian uint48) ‖ ECDSA of the key (65).
    uint256 internal constant SESSION_SIGNATURE_LENGTH = 91;
    uint256 internal constant DAY = 1 days;
    bytes4 internal constant ERC20_TRANSFER = 0xa9059cbb;
    bytes4 internal constant ERC20_APPROVE = 0x095ea7b3;

    IEntryPoint public immutable entryPoint;
    /// @notice The legacy wallet this account operates (its owner), or zero when calls are made from here.
    address public immutable vault;
    /// @notice The EOA whose signature controls this wallet.
    address public owner;

    struct Session {
        uint48 validUntil;
        bool active;
        uint128 maxValuePerCall;
        uint128 maxValuePerDay;
    }

    struct Policy {
        address[] targets;
        bytes4[] selectors;
        uint128 maxValuePerCall;
        uint128 maxValuePerDay;
        address[] tokens;
        uint256[] tokenLimitsPerDay;
        uint48 validUntil;
    }

    mapping(address key => Session) public sessions;
    /// @dev A key once registered is never registered again, so stale allow-list entries of a revoked key stay dead.
    mapping(address key => bool) public keyUsed;
    mapping(address key => mapping(address target => mapping(bytes4 selector => bool))) public callAllowed;
    mapping(address key => mapping(address token => uint256)) public tokenLimitPerDay;
    mapping(address key => mapping(uint256 day => uint256)) public valueSpent;
    mapping(address key => mapping(address token => mapping(uint256 day => uint256))) public tokenSpent;

    event OwnerChanged(address indexed previousOwner, address indexed newOwner);
    event SessionKeyAdded(address indexed key, uint48 validUntil);
    event SessionKeyRevoked(address indexed key);

    error Unauthorized(address caller);
    error InvalidOwner(address newOwner);
    error ArrayLengthMismatch();
    error InvalidSessionKey(address key);
    error InvalidPolicy();
    error ForbiddenTarget(address target);
    error UnknownSessionKey(address key);

    modifier onlyOwnerOrEntryPoint() {
        if (msg.sender != address(entryPoint) && msg.sender != owner) revert Unauthorized(msg.sender);
        _;
    }

    /// @dev Operations the owner signed reach these through the EntryPoint or the wallet's own `execute`.
    modifier onlySelfOrEntryPoint() {
        if (msg.sender != address(entryPoint) && msg.sender != address(this)) revert Unauthorized(msg.sender);
        _;
    }

    constructor(IEntryPoint anEntryPoint, address anOwner, address aVault) {
        if (anOwner == address(0)) revert InvalidOwner(anOwner);
        entryPoint = anEntryPoint;
        owner = anOwner;
        vault = aVault;
    }

    receive() external payable {}

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
        bytes calldata signature = userOp.signature;
        if (signature.length == SESSION_SIGNATURE_LENGTH) {
            address key = address(bytes20(signature[0:20]));
            address signer = SignatureRecovery.recoverEthSigned(userOpHash, signature[26:91]);
            if (signer == address(0) || signer != key) {
                validationData = SIG_VALIDATION_FAILED;
            } else {
                validationData = _validateSession(key, uint48(bytes6(signature[20:26])), userOp);
            }
        } else {
            address signer = SignatureRecovery.recoverEthSigned(userOpHash, signature);
            if (signer == address(0) || signer != owner) validationData = SIG_VALIDATION_FAILED;
        }
        if (missingAccountFunds != 0) {
            // Prefund without a paymaster. The EntryPoint checks its deposit itself, so the result is ignored.
            (bool paid,) = payable(msg.sender).call{value: missingAccountFunds}("");
            (paid);
        }
    }

    /// @notice Calls `dest` with `value` wei and `func` as call data (from the vault, if any).
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

    /// @notice Hands the wallet to `newOwner`; the address stays the same.
    function changeOwner(address newOwner) external onlySelfOrEntryPoint {
        if (newOwner == address(0) || newOwner == address(this)) revert InvalidOwner(newOwner);
        emit OwnerChanged(owner, newOwner);
        owner = newOwner;
    }

    /// @notice Registers a fresh session key with its policy (owner only, through an operation or `execute`).
    function addSessionKey(address key, Policy calldata policy) external onlySelfOrEntryPoint {
        if (key == address(0) || key == owner || keyUsed[key]) revert InvalidSessionKey(key);
        if (
            policy.targets.length != policy.selectors.length
                || policy.tokens.length != policy.tokenLimitsPerDay.length || policy.validUntil <= block.timestamp
        ) revert InvalidPolicy();
        for (uint256 i = 0; i < policy.targets.length; ++i) {
            address target = policy.targets[i];
            if (_isForbidden(target)) revert ForbiddenTarget(target);
            callAllowed[key][target][policy.selectors[i]] = true;
        }
        for (uint256 i = 0; i < policy.tokens.length; ++i) {
            if (policy.tokenLimitsPerDay[i] == 0) revert InvalidPolicy();
            tokenLimitPerDay[key][policy.tokens[i]] = policy.tokenLimitsPerDay[i];
        }
        keyUsed[key] = true;
        sessions[key] = Session({
            validUntil: policy.validUntil,
            active: true,
            maxValuePerCall: policy.maxValuePerCall,
            maxValuePerDay: policy.maxValuePerDay
        });
        emit SessionKeyAdded(key, policy.validUntil);
    }

    /**
     * @notice Revokes `key` at once. The owner may revoke any key; a session key may sign an operation whose
     * call data is exactly `revokeSessionKey(itself)` (validation refuses any other key).
     */
    function revokeSessionKey(address key) external onlySelfOrEntryPoint {
        if (!sessions[key].active) revert UnknownSessionKey(key);
        sessions[key].active = false;
        emit SessionKeyRevoked(key);
    }

    /// @dev Checks the operation's call data against `key`'s policy and counts its spending on `day`. Reverts
    /// (Error(string), so the EntryPoint says "AA23 reverted: session: ...") when outside the policy.
    function _validateSession(address key, uint48 day, UserOperation calldata userOp)
        private
        returns (uint256 validationData)
    {
        Session memory session = sessions[key];
        require(session.active, "session: unknown or revoked key");
        bytes calldata callData = userOp.callData;
        require(callData.length >= 4, "session: call not allowed");
        address paymaster =
            userOp.paymasterAndData.length >= 20 ? address(bytes20(userOp.paymasterAndData[0:20])) : address(0);
        bytes4 selector = bytes4(callData[0:4]);
        if (selector == this.execute.selector) {
            (address dest, uint256 value, bytes memory func) = abi.decode(callData[4:], (address, uint256, bytes));
            _checkCall(key, session, day, paymaster, dest, value, func);
        } else if (selector == this.executeBatch.selector) {
            (address[] memory dest, uint256[] memory value, bytes[] memory func) =
                abi.decode(callData[4:], (address[], uint256[], bytes[]));
            require(
                dest.length == func.length && (value.length == 0 || value.length == func.length),
                "session: call not allowed"
            );
            for (uint256 i = 0; i < dest.length; ++i) {
                _checkCall(key, session, day, paymaster, dest[i], value.length == 0 ? 0 : value[i], func[i]);
            }
        } else if (selector == this.revokeSessionKey.selector) {
            require(abi.decode(callData[4:], (address)) == key, "session: call not allowed");
        } else {
            revert("session: call not allowed");
        }
        // The EntryPoint rejects the operation outside [start of `day`, min(end of `day`, expiry)].
        uint256 dayStart = uint256(day) * DAY;
        uint256 dayEnd = dayStart + DAY - 1;
        // The window is packed as uint48s: a day beyond them would wrap its start to the past and open fresh
        // counters for ever.
        require(dayEnd <= type(uint48).max, "session: day out of range");
        uint256 validUntil = session.validUntil < dayEnd ? session.validUntil : dayEnd;
        validationData = (dayStart << 208) | (validUntil << 160);
    }

    function _checkCall(
        address key,
        Session memory session,
        uint48 day,
        address paymaster,
        address dest,
        uint256 value,
        bytes memory func
    ) private {
        require(!_isForbidden(dest) && dest != paymaster, "session: forbidden target");
        bytes4 selector;
        if (func.length >= 4) {
            assembly ("memory-safe") {
                selector := mload(add(func, 0x20))
            }
        }
        require(callAllowed[key][dest][selector], "session: call not allowed");
        require(value <= session.maxValuePerCall, "session: value per call");
        if (value != 0) {
            uint256 spent = valueSpent[key][day] + value;
            require(spent <= session.maxValuePerDay, "session: value per day");
            valueSpent[key][day] = spent;
        }
        uint256 tokenLimit = tokenLimitPerDay[key][dest];
        if (tokenLimit != 0) {
            // A capped token is moved only by transfer/approve, whose amount is the second argument.
            require(
                (selector == ERC20_TRANSFER || selector == ERC20_APPROVE) && func.length >= 68,
                "session: token call not capped"
            );
            uint256 amount;
            assembly ("memory-safe") {
                amount := mload(add(func, 0x44))
            }
            uint256 spentToken = tokenSpent[key][dest][day] + amount;
            require(spentToken <= tokenLimit, "session: token per day");
            tokenSpent[key][dest][day] = spentToken;
        }
    }

    /// @dev Never callable by a session key: the wallet itself, its vault, the EntryPoint.
    function _isForbidden(address target) private view returns (bool) {
        return target == address(this) || target == vault || target == address(entryPoint) || target == address(0);
    }

    /// @dev Calls to this contract stay here (owner administration); all others are made by the vault, if any.
    function _call(address target, uint256 value, bytes calldata data) private {
        address from = vault;
        if (from == address(0) || target == address(this)) {
            assembly ("memory-safe") {
                let input := mload(0x40)
                calldatacopy(input, data.offset, data.length)
                if iszero(call(gas(), target, value, input, data.length, 0, 0)) {
                    returndatacopy(input, 0, returndatasize())
                    revert(input, returndatasize())
                }
            }
        } else {
            IDauthAccountExecute(from).execute(target, value, data);
        }
    }
}
