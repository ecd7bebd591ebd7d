// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/**
 * @notice ECDSA recovery of an EIP-191 ("\x19Ethereum Signed Message:\n32") signed hash, reading the 65-byte
 * signature r ‖ s ‖ v straight from calldata. Same acceptance rules as OpenZeppelin's ECDSA.tryRecover
 * (65 bytes, low s only, v of 27 or 28); written in assembly because it runs in every operation's validation
 * twice (wallet and paymaster) and the checked Solidity version costs several hundred gas more.
 */
library SignatureRecovery {
    /// @dev Largest canonical s (secp256k1n / 2), EIP-2: rejects the malleable twin of each signature.
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// @return signer The address that signed `hash` as an EIP-191 message, or zero for any invalid signature.
    function recoverEthSigned(bytes32 hash, bytes calldata signature) internal view returns (address signer) {
        if (signature.length != 65) return address(0);
        assembly ("memory-safe") {
            let s := calldataload(add(signature.offset, 0x20))
            let v := byte(0, calldataload(add(signature.offset, 0x40)))
            if and(iszero(gt(s, MAX_S)), or(eq(v, 27), eq(v, 28))) {
                // keccak256("\x19Ethereum Signed Message:\n32" ‖ hash), as ECDSA.toEthSignedMessageHash, in scratch.
                mstore(0x00, "\x19Ethereum Signed Message:\n32")
                mstore(0x1c, hash)
                let digest := keccak256(0x00, 0x3c)
                // ecrecover(digest, v, r, s) input past the free memory pointer, left there unallocated.
                let input := mload(0x40)
                mstore(input, digest)
                mstore(add(input, 0x20), v)
                mstore(add(input, 0x40), calldataload(signature.offset))
                mstore(add(input, 0x60), s)
                // The precompile writes its 32-byte result only when it recovers an address; else 0x00 stays 0.
                mstore(0x00, 0)
                pop(staticcall(gas(), 0x01, input, 0x80, 0x00, 0x20))
                signer := mload(0x00)
            }
        }
    }
}
