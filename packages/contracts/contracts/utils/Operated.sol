// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/**
 * @notice The platform's operator wallet runs the day-to-day writers; the owner (deployer or governance) only
 * rotates the operator. Keeping the two apart lets the hot operator key be replaced without redeploying.
 */
abstract contract Operated is Ownable {
    address public operator;

    event OperatorChanged(address indexed previousOperator, address indexed newOperator);

    error NotOperator(address caller);
    error ZeroAddress();

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        _;
    }

    constructor(address initialOperator) {
        _setOperator(initialOperator);
    }

    function setOperator(address newOperator) external onlyOwner {
        _setOperator(newOperator);
    }

    function _setOperator(address newOperator) private {
        if (newOperator == address(0)) revert ZeroAddress();
        emit OperatorChanged(operator, newOperator);
        operator = newOperator;
    }
}
