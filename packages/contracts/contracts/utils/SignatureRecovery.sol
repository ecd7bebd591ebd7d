// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/**
 * @notice ECDSA recovery of an EIP-191 ("\x19Ethereum Signed Message:\n32") signed hash, reading the 65-byte
 * signature straight from calldata. Same acceptance rules as OpenZeppelin's ECDSA.tryRecover (65 bytes,
 * low-s only, v of 27 or 28), without copying the signature to memory: validation runs on every operation.
 */
library SignatureRecovery {
    /// @dev Largest canonical s (secp256k1n / 2), EIP-2: rejects the malleable twin of each signature.
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// @return signer The address that signed `hash` as an EIP-191 message, or zero for any invalid signature.
    function recoverEthSigned(bytes32 hash, bytes calldata signature) internal view returns (address signer) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > MAX_S || (v != 27 && v != 28)) return address(0);
        // The precompile yields no address for an unrecoverable signature; ecrecover then returns zero.
        return ecrecover(ECDSA.toEthSignedMessageHash(hash), v, r, s);
    }
}
