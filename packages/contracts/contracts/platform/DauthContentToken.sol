// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {Operated} from "../utils/Operated.sol";

/**
 * @title DauthContentToken
 * @notice Content tokens of registered providers (one `cuid` per game, owned by one OAuth client), held per slot
 * wallet. A purchase pays the platform 15% and the provider 85% at once and credits 1 token unit per wei;
 * the provider's backend (through the platform operator) records consumption, which moves tokens from
 * `balance` to the permanent `used_balances`; when the platform enables release for a cuid, consumption is
 * settled to the provider from a per-cuid pool at `releasePer` percent, each unit of usage once.
 * @dev Events and storage key cuids by `cuidHash = keccak256(bytes(cuid))`.
 */
contract DauthContentToken is Operated {
    uint256 public constant PLATFORM_FEE_PERCENT = 15;

    struct Provider {
        address ownerAddr; // zero while the cuid is unregistered
        uint8 releasePer;
        bool releaseEnabled; // `_cuid_releaseTokenEnabled` of the spec, off until the platform enables it
        bool termsFrozen; // set when release is first enabled, never cleared: only `amendTerms` changes the terms
        uint128 pool; // wei; with the next field in one storage word, which `release` writes once
        uint128 unsettledUsage; // usage recorded and not yet settled, all slots together
        string clientId;
    }

    /// @dev Both counters share one storage word, so recording a usage costs a single SSTORE.
    struct SlotBalance {
        uint128 balance;
        uint128 used;
    }

    /// @notice Receives the platform's 15% of every purchase.
    address public treasury;

    mapping(bytes32 => Provider) private _providers;
    mapping(bytes32 => mapping(address => SlotBalance)) private _balances;
    /// @dev Usage (in token units) already settled by `release`, per cuid and slot.
    mapping(bytes32 => mapping(address => uint256)) private _released;
    /// @dev Usage batches already recorded, keyed by `_recordedBatchKey(batchKey, cuidHash)`.
    mapping(bytes32 => bool) private _recordedBatches;

    event TreasuryChanged(address indexed previousTreasury, address indexed newTreasury);
    event ProviderRegistered(
        bytes32 indexed cuidHash, string cuid, string clientId, uint8 releasePer, address indexed ownerAddr
    );
    event ContentTokenBought(
        bytes32 indexed cuidHash,
        address indexed slot,
        address indexed buyer,
        uint256 amount,
        uint256 platformFee,
        uint256 providerAmount
    );
    event UsageRecorded(
        bytes32 indexed cuidHash, address indexed slot, uint256 amount, uint256 balance, uint256 usedBalance
    );
    /// @notice Opens the `records` UsageRecorded events of one recorded batch, which follow it directly.
    event UsageBatchRecorded(bytes32 indexed batchKey, bytes32 indexed cuidHash, uint256 records);
    event ReleaseEnabledChanged(bytes32 indexed cuidHash, bool enabled);
    event PoolFunded(bytes32 indexed cuidHash, address indexed from, uint256 amount, uint256 pool);
    event PoolWithdrawn(bytes32 indexed cuidHash, address indexed to, uint256 amount, uint256 pool);
    event Released(
        bytes32 indexed cuidHash, address indexed slot, address indexed ownerAddr, uint256 usage, uint256 paid
    );

    error EmptyIdentifier();
    error InvalidReleasePer(uint8 releasePer);
    error CuidTaken(string cuid, string clientId);
    error UnknownCuid(string cuid);
    error ZeroAmount();
    error LengthMismatch();
    error InsufficientBalance(string cuid, address slot, uint256 balance, uint256 amount);
    error ReleaseDisabled(string cuid);
    error NothingToRelease(string cuid, address slot);
    error InsufficientPool(string cuid, uint256 pool, uint256 amount);
    error PaymentFailed(address to, uint256 amount);
    error UnsettledUsage(string cuid, uint256 usage);
    error TermsFrozen(string cuid);

    constructor(address initialOperator, address initialTreasury) Operated(initialOperator) {
        _setTreasury(initialTreasury);
    }

    // ----- administration -----

    function setTreasury(address newTreasury) external onlyOwner {
        _setTreasury(newTreasury);
    }

    /**
     * @notice Registers `cuid` for the OAuth client `clientId`, or updates its terms if that client already
     * holds it. A cuid never moves to another client. Once release was enabled for the cuid its terms are
     * frozen: a change reverts with TermsFrozen (the same terms again pass), whatever order the service's
     * own check and the platform's switch ran in; only the platform's `amendTerms` changes them then.
     */
    function registerProvider(string calldata clientId, string calldata cuid, uint8 releasePer, address ownerAddr)
        external
        onlyOperator
    {
        if (bytes(clientId).length == 0 || bytes(cuid).length == 0) revert EmptyIdentifier();
        if (releasePer > 100) revert InvalidReleasePer(releasePer);
        if (ownerAddr == address(0)) revert ZeroAddress();
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _providers[key];
        if (provider.ownerAddr == address(0)) {
            provider.clientId = clientId;
        } else if (keccak256(bytes(provider.clientId)) != keccak256(bytes(clientId))) {
            revert CuidTaken(cuid, provider.clientId);
        } else if (provider.termsFrozen && (provider.ownerAddr != ownerAddr || provider.releasePer != releasePer)) {
            revert TermsFrozen(cuid);
        }
        provider.ownerAddr = ownerAddr;
        provider.releasePer = releasePer;
        emit ProviderRegistered(key, cuid, clientId, releasePer, ownerAddr);
    }

    /// @notice Turns settlement for `cuid` on or off; by the platform (operator or owner). Enabling freezes the terms.
    function setReleaseEnabled(string calldata cuid, bool enabled) external {
        if (msg.sender != operator && msg.sender != owner()) revert NotOperator(msg.sender);
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _registered(key, cuid);
        provider.releaseEnabled = enabled;
        if (enabled) provider.termsFrozen = true;
        emit ReleaseEnabledChanged(key, enabled);
    }

    // ----- purchase -----

    /**
     * @notice Buys content tokens of `cuid` for the slot wallet `slot` with msg.value wei, 1 unit per wei.
     * Pays `floor(value * 15 / 100)` to the treasury and the rest (85% plus the rounding remainder) to the
     * provider, in this transaction. Anyone may pay.
     */
    function buy(string calldata cuid, address slot)
        external
        payable
        returns (uint256 platformFee, uint256 providerAmount)
    {
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _registered(key, cuid);
        if (slot == address(0)) revert ZeroAddress();
        if (msg.value == 0) revert ZeroAmount();
        platformFee = (msg.value * PLATFORM_FEE_PERCENT) / 100;
        providerAmount = msg.value - platformFee;
        // Effects before the payouts: a re-entrant payee only ever sees a consistent ledger.
        _balances[key][slot].balance += SafeCast.toUint128(msg.value);
        emit ContentTokenBought(key, slot, msg.sender, msg.value, platformFee, providerAmount);
        _pay(treasury, platformFee);
        _pay(provider.ownerAddr, providerAmount);
    }

    // ----- consumption -----

    /**
     * @notice Records consumption for many slots of one cuid: each `amounts[i]` moves from the balance of
     * `slots[i]` to its used balance. All or nothing: a record above its balance (or of zero) reverts the
     * whole batch with InsufficientBalance naming it, so the server can drop it and resend the rest.
     * Several cuids go in one transaction as several calls of the operator's `executeBatch`.
     *
     * `batchKey` makes a resend harmless: the server names every batch once and sends it under that name
     * until it finds it on chain, so a batch whose first transaction landed late (after an outage, a lost
     * receipt or a reorg) is counted once. A batch already recorded for this cuid changes nothing and
     * returns false; the server then reads its figures from the first transaction's events.
     */
    function recordUsage(
        bytes32 batchKey,
        string calldata cuid,
        address[] calldata slots,
        uint256[] calldata amounts
    ) external onlyOperator returns (bool recorded) {
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _registered(key, cuid);
        if (slots.length != amounts.length) revert LengthMismatch();
        bytes32 recordedKey = _recordedBatchKey(batchKey, key);
        if (_recordedBatches[recordedKey]) return false;
        _recordedBatches[recordedKey] = true;
        emit UsageBatchRecorded(batchKey, key, slots.length);
        mapping(address => SlotBalance) storage balances = _balances[key];
        uint256 usage = 0;
        for (uint256 i = 0; i < slots.length; ++i) {
            address slot = slots[i];
            uint256 amount = amounts[i];
            SlotBalance memory current = balances[slot];
            if (amount == 0 || amount > current.balance) {
                revert InsufficientBalance(cuid, slot, current.balance, amount);
            }
            // amount <= balance < 2**128, so the narrowing is exact.
            current.balance -= uint128(amount);
            current.used += uint128(amount);
            balances[slot] = current;
            usage += amount;
            emit UsageRecorded(key, slot, amount, current.balance, current.used);
        }
        // Bounded by the tokens ever bought (wei), far below 2**128.
        provider.unsettledUsage += SafeCast.toUint128(usage);
        return true;
    }

    // ----- settlement -----

    /// @notice Adds msg.value wei to the settlement pool of `cuid`.
    function fundPool(string calldata cuid) external payable {
        if (msg.value == 0) revert ZeroAmount();
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _registered(key, cuid);
        uint256 pool = provider.pool + msg.value;
        provider.pool = SafeCast.toUint128(pool);
        emit PoolFunded(key, msg.sender, msg.value, pool);
    }

    /// @notice Takes unneeded funds back out of the pool of `cuid`; owner only, so the hot operator key cannot.
    function withdrawPool(string calldata cuid, address payable to, uint256 amount) external onlyOwner {
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _registered(key, cuid);
        if (amount > provider.pool) revert InsufficientPool(cuid, provider.pool, amount);
        uint256 pool = provider.pool - amount;
        provider.pool = uint128(pool);
        emit PoolWithdrawn(key, to, amount, pool);
        _pay(to, amount);
    }

    /**
     * @notice Pays the provider `(used - alreadyReleased) * releasePer / 100` wei (rounded down) from the pool
     * for the usage of `slot` not yet settled, then marks that usage settled, so it is never paid twice.
     */
    function release(string calldata cuid, address slot) external onlyOperator returns (uint256 paid) {
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _registered(key, cuid);
        if (!provider.releaseEnabled) revert ReleaseDisabled(cuid);
        address[] memory slots = new address[](1);
        slots[0] = slot;
        uint256 usage;
        (usage, paid) = _settle(key, provider, cuid, slots);
        if (usage == 0) revert NothingToRelease(cuid, slot);
        _pay(provider.ownerAddr, paid);
    }

    /**
     * @notice Settles, at the terms in force, the unsettled usage of each of `slots` (slots with none are
     * skipped), whether or not release is enabled: the platform's step before it changes the terms of a cuid
     * with more slots than one `amendTerms` carries.
     */
    function settle(string calldata cuid, address[] calldata slots) external onlyOperator returns (uint256 paid) {
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _registered(key, cuid);
        (, paid) = _settle(key, provider, cuid, slots);
        _pay(provider.ownerAddr, paid);
    }

    /**
     * @notice A platform-approved change of the terms of `cuid`: settles the unsettled usage of `slots` at the
     * terms in force (paid to the current `ownerAddr`), then applies `releasePer` and `ownerAddr`. Reverts with
     * UnsettledUsage when usage of any slot outside `slots` is still unsettled, so usage recorded under the old
     * terms is never paid at the new ones, however usage batches and this call interleave.
     */
    function amendTerms(string calldata cuid, uint8 releasePer, address ownerAddr, address[] calldata slots)
        external
        onlyOperator
        returns (uint256 paid)
    {
        if (releasePer > 100) revert InvalidReleasePer(releasePer);
        if (ownerAddr == address(0)) revert ZeroAddress();
        bytes32 key = cuidHash(cuid);
        Provider storage provider = _registered(key, cuid);
        (, paid) = _settle(key, provider, cuid, slots);
        if (provider.unsettledUsage != 0) revert UnsettledUsage(cuid, provider.unsettledUsage);
        address paidTo = provider.ownerAddr;
        provider.ownerAddr = ownerAddr;
        provider.releasePer = releasePer;
        emit ProviderRegistered(key, cuid, provider.clientId, releasePer, ownerAddr);
        _pay(paidTo, paid);
    }

    // ----- views -----

    function cuidHash(string calldata cuid) public pure returns (bytes32) {
        return keccak256(bytes(cuid));
    }

    function balanceOf(string calldata cuid, address slot) external view returns (uint256) {
        return _balances[cuidHash(cuid)][slot].balance;
    }

    function usedBalanceOf(string calldata cuid, address slot) external view returns (uint256) {
        return _balances[cuidHash(cuid)][slot].used;
    }

    /// @notice Whether the usage batch `batchKey` has been recorded for `cuid`.
    function usageBatchRecorded(bytes32 batchKey, string calldata cuid) external view returns (bool) {
        return _recordedBatches[_recordedBatchKey(batchKey, cuidHash(cuid))];
    }

    /// @notice Usage of `slot` already settled by `release`, in token units.
    function releasedOf(string calldata cuid, address slot) external view returns (uint256) {
        return _released[cuidHash(cuid)][slot];
    }

    /// @notice What `release(cuid, slot)` would settle now: unsettled usage and the wei it pays.
    function releasableOf(string calldata cuid, address slot) external view returns (uint256 usage, uint256 amount) {
        bytes32 key = cuidHash(cuid);
        return _releasable(key, _providers[key], slot);
    }

    /// @notice Usage of `cuid` recorded and not yet settled, all slots together.
    function unsettledUsageOf(string calldata cuid) external view returns (uint256) {
        return _providers[cuidHash(cuid)].unsettledUsage;
    }

    function releaseEnabled(string calldata cuid) external view returns (bool) {
        return _providers[cuidHash(cuid)].releaseEnabled;
    }

    /// @notice Whether `registerProvider` refuses a change of the terms of `cuid` (release was enabled once).
    function termsFrozen(string calldata cuid) external view returns (bool) {
        return _providers[cuidHash(cuid)].termsFrozen;
    }

    function poolOf(string calldata cuid) external view returns (uint256) {
        return _providers[cuidHash(cuid)].pool;
    }

    /// @notice The registration of `cuid`; `ownerAddr` is zero if it is not registered.
    function providerOf(string calldata cuid)
        external
        view
        returns (string memory clientId, address ownerAddr, uint8 releasePer, bool enabled, uint256 pool)
    {
        Provider storage provider = _providers[cuidHash(cuid)];
        return (provider.clientId, provider.ownerAddr, provider.releasePer, provider.releaseEnabled, provider.pool);
    }

    // ----- internals -----

    function _registered(bytes32 key, string calldata cuid) private view returns (Provider storage provider) {
        provider = _providers[key];
        if (provider.ownerAddr == address(0)) revert UnknownCuid(cuid);
    }

    /// @dev The `_recordedBatches` key of one batch's call for one cuid.
    function _recordedBatchKey(bytes32 batchKey, bytes32 cuidKey) private pure returns (bytes32) {
        return keccak256(abi.encode(batchKey, cuidKey));
    }

    function _releasable(bytes32 key, Provider storage provider, address slot)
        private
        view
        returns (uint256 usage, uint256 amount)
    {
        usage = _balances[key][slot].used - _released[key][slot];
        amount = (usage * provider.releasePer) / 100;
    }

    /// @dev Marks the unsettled usage of `slots` settled and takes its pay from the pool; the caller pays it.
    function _settle(bytes32 key, Provider storage provider, string calldata cuid, address[] memory slots)
        private
        returns (uint256 usage, uint256 paid)
    {
        for (uint256 i = 0; i < slots.length; ++i) {
            (uint256 slotUsage, uint256 slotPaid) = _releasable(key, provider, slots[i]);
            if (slotUsage == 0) continue;
            _released[key][slots[i]] += slotUsage;
            usage += slotUsage;
            paid += slotPaid;
            emit Released(key, slots[i], provider.ownerAddr, slotUsage, slotPaid);
        }
        uint256 pool = provider.pool;
        if (paid > pool) revert InsufficientPool(cuid, pool, paid);
        // Both fit: paid <= pool < 2**128, and usage <= unsettledUsage (every used unit was counted in).
        provider.pool = uint128(pool - paid);
        provider.unsettledUsage -= uint128(usage);
    }

    function _pay(address to, uint256 amount) private {
        if (amount == 0) return;
        (bool ok,) = payable(to).call{value: amount}("");
        if (!ok) revert PaymentFailed(to, amount);
    }

    function _setTreasury(address newTreasury) private {
        if (newTreasury == address(0)) revert ZeroAddress();
        emit TreasuryChanged(treasury, newTreasury);
        treasury = newTreasury;
    }
}
