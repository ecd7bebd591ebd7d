// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title DauthToken
/// @notice The platform's ERC-20 for transfers, demos and tests; the owner mints (the development faucet).
contract DauthToken is ERC20, Ownable {
    constructor() ERC20("dauth Token", "DAUTH") {}

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
