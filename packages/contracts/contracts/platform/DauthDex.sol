// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {Operated} from "../utils/Operated.sol";
import {SignatureRecovery} from "../utils/SignatureRecovery.sol";

/// @dev The one function of a DauthAccount the dex calls on a content wallet it owns.
interface IDauthAccountExecute {
    function execute(address dest, uint256 value, bytes calldata func) external;
}

/**
 * @title DauthDex
 * @notice Source of truth for slot ownership. A slot (a user's OAuth rights for one app) is owned by a wallet
 * address and has a content wallet fixed at creation. The platform operator creates and moves slots; a buyer's
 * wallet buys a slot the platform put on sale by paying its price in the same call (`purchase`).
 *
 * A slot's content wallet is a DauthAccount whose owner is this contract, so whoever owns the slot here
 * operates it through `executeFromSlot`: the content wallet follows the slot without any key changing hands.
 */
contract DauthDex is Operated {
    struct Slot {
        address owner;
        uint96 transferCount;
        address contentAddress;
    }

    /// @dev Domain tag of a sale authorisation, so no other signature of the sale signer can pass for one.
    bytes32 private constant SALE_TAG = keccak256("DauthDex.purchase");

    mapping(uint256 => Slot) private _slots;

    /// @notice Key whose EIP-191 signature authorises a `purchase` (the platform's signer).
    address public saleSigner;

    event SlotBought(uint256 indexed slot, address indexed owner, address indexed contentAddress);
    event SlotOwnerChanged(
        uint256 indexed slot, address indexed previousOwner, address indexed newOwner, uint256 transferCount
    );
    event SlotSold(uint256 indexed slot, address indexed seller, address indexed buyer, uint256 price);
    event SaleSignerChanged(address indexed previousSigner, address indexed newSigner);

    error SlotExists(uint256 slot);
    error NotSlotOwner(uint256 slot, address claimedOwner, address actualOwner);
    error SameOwner(uint256 slot);
    error SaleExpired(uint256 deadline);
    error InvalidSaleSignature();
    error PaymentFailed(address seller, uint256 price);
    error ContentWalletSelfCall(uint256 slot);

    constructor(address initialOperator, address initialSaleSigner) Operated(initialOperator) {
        _setSaleSigner(initialSaleSigner);
    }

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

    /**
     * @notice The caller (the buyer's wallet) buys `slot` from `seller` for `msg.value` wei: the price goes to
     * the seller's wallet and the slot to the caller in this one call, both or neither.
     * @dev `authorisation` is the sale signer's EIP-191 signature of `saleHash(slot, seller, buyer, price,
     * deadline)`. It covers the slot's transfer count, so it is spent by the move it authorises.
     */
    function purchase(uint256 slot, address seller, uint256 deadline, bytes calldata authorisation)
        external
        payable
    {
        if (block.timestamp > deadline) revert SaleExpired(deadline);
        Slot storage record = _slots[slot];
        address current = record.owner;
        if (current != seller || current == address(0)) revert NotSlotOwner(slot, seller, current);
        if (msg.sender == current) revert SameOwner(slot);
        uint96 count = record.transferCount;
        address signer =
            SignatureRecovery.recoverEthSigned(_saleHash(slot, seller, msg.sender, msg.value, count, deadline), authorisation);
        if (signer == address(0) || signer != saleSigner) revert InvalidSaleSignature();
        // Effects before the payment: a re-entrant seller wallet sees the sale done.
        record.owner = msg.sender;
        record.transferCount = count + 1;
        emit SlotOwnerChanged(slot, current, msg.sender, count + 1);
        emit SlotSold(slot, current, msg.sender, msg.value);
        if (msg.value != 0) {
            (bool paid,) = payable(current).call{value: msg.value}("");
            if (!paid) revert PaymentFailed(current, msg.value);
        }
    }

    /**
     * @notice The slot's owner wallet makes the slot's content wallet call `dest` with `value` wei (from the
     * content wallet's own balance) and `func`; the callee's revert is bubbled up.
     * @dev A call to the content wallet itself is refused: through it an owner could `changeOwner` the content
     * wallet away from the dex and sell a slot whose content wallet no longer follows it.
     */
    function executeFromSlot(uint256 slot, address dest, uint256 value, bytes calldata func) external {
        Slot storage record = _slots[slot];
        address current = record.owner;
        if (msg.sender != current || current == address(0)) revert NotSlotOwner(slot, msg.sender, current);
        address content = record.contentAddress;
        if (dest == content) revert ContentWalletSelfCall(slot);
        IDauthAccountExecute(content).execute(dest, value, func);
    }

    /// @notice The hash the sale signer signs (as an EIP-191 message) to authorise a `purchase`.
    function saleHash(uint256 slot, address seller, address buyer, uint256 price, uint256 deadline)
        external
        view
        returns (bytes32)
    {
        return _saleHash(slot, seller, buyer, price, _slots[slot].transferCount, deadline);
    }

    function setSaleSigner(address newSigner) external onlyOwner {
        _setSaleSigner(newSigner);
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

    function _saleHash(uint256 slot, address seller, address buyer, uint256 price, uint256 count, uint256 deadline)
        private
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(SALE_TAG, block.chainid, address(this), slot, seller, buyer, price, count, deadline));
    }

    function _setSaleSigner(address newSigner) private {
        if (newSigner == address(0)) revert ZeroAddress();
        emit SaleSignerChanged(saleSigner, newSigner);
        saleSigner = newSigner;
    }
}
