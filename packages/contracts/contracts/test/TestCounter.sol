// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @notice Call target of the tests and the gas benchmark: one storage write per call, keyed by the caller.
contract TestCounter {
    mapping(address => uint256) public counts;

    error Boom();

    function increment() external payable {
        counts[msg.sender] += 1;
    }

    /// @notice Always reverts, to check that wallets bubble up a callee's revert reason.
    function fail() external pure {
        revert Boom();
    }
}
