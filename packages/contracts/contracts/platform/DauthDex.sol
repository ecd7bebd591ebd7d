// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {Operated} from "../utils/Operated.sol";

/**
 * @title DauthDex
 * @notice Source of truth for slot ownership. A slot (a user's OAuth rights for one app) is owned by a wallet
 * address and has a content wallet fixed at creation. Only the platform operator writes.
 */
contract DauthDex is Operated {
    struct Slot {
        address owner;
        uint96 transferCount;
        address contentAddress;
    }

    mapping(uint256 => Slot) private _slots;

    event SlotBought(uint256 indexed slot, address indexed owner, address indexed contentAddress);
    event SlotOwnerChanged(
        uint256 indexed slot, address indexed previousOwner, address indexed newOwner, uint256 transferCount
    );

    error SlotExists(uint256 slot);
    error NotSlotOwner(uint256 slot, address claimedOwner, address actualOwner);
    error SameOwner(uint256 slot);

    constructor(address initialOperator) Operated(initialOperator) {}

    /// @notice Creates `slot`, owned by the wallet `aaAddress`, with content wallet `contentAddress`.
    function buy_slot(address aaAddress, uint256 slot, address contentAddress) external onlyOperator {
        if (aaAddress == address(0) || contentAddress == address(0)) revert ZeroAddress();
        if (_slots[slot].owner != address(0)) revert SlotExists(slot);
        _slots[slot] = Slot({owner: aaAddress, transferCount: 0, contentAddress: contentAddress});
        emit SlotBought(slot, aaAddress, contentAddress);
    }

    /// @notice Moves `slot` from its current owner `aaAddress` to `newOwnerAAAddress`.
    function init_self(address aaAddress, uint256 slot, address newOwnerAAAddress) external onlyOperator {
        if (newOwnerAAAddress == address(0)) revert ZeroAddress();
        Slot storage record = _slots[slot];
        address current = record.owner;
        // Also rejects unknown slots: their owner is zero and aaAddress never is (it is checked at creation).
        if (current != aaAddress || current == address(0)) revert NotSlotOwner(slot, aaAddress, current);
        if (newOwnerAAAddress == current) revert SameOwner(slot);
        uint96 count = record.transferCount + 1;
        record.owner = newOwnerAAAddress;
        record.transferCount = count;
        emit SlotOwnerChanged(slot, current, newOwnerAAAddress, count);
    }

    /// @notice The wallet owning `slot`, or zero if the slot does not exist.
    function ownerOf(uint256 slot) external view returns (address) {
        return _slots[slot].owner;
    }

    /// @notice The content wallet of `slot`, fixed when it was created.
    function contentAddressOf(uint256 slot) external view returns (address) {
        return _slots[slot].contentAddress;
    }

    /// @notice How many times `slot` changed owner.
    function transferCount(uint256 slot) external view returns (uint256) {
        return _slots[slot].transferCount;
    }
}
