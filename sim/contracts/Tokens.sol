// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// Collateral tokens of the simulated alpha chain: USDC.e, the neg-risk WrappedCollateral (WCOL) and
// pUSD (CollateralToken) with its on/off ramps. Placed at their Polygon addresses with anvil_setCode, so
// no constructor runs: every contract has a one-shot init() that sets its storage.
//
// Simplification (docs/decisions.md): protocol contracts are "trusted spenders" set at deploy time, so
// wallets need no approve() transactions. Token movements and their events are otherwise real.

abstract contract SimInit {
    address public admin;
    bool internal initialized;

    modifier onlyAdmin() {
        require(msg.sender == admin, "not admin");
        _;
    }

    function _init() internal {
        require(!initialized, "initialized");
        initialized = true;
        admin = msg.sender;
    }
}

contract SimERC20 is SimInit {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    string public name;
    string public symbol;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public trustedSpender;
    mapping(address => bool) public minter;

    function decimals() external pure returns (uint8) {
        return 6;
    }

    function initToken(string calldata _name, string calldata _symbol) external {
        _init();
        name = _name;
        symbol = _symbol;
    }

    function setTrusted(address spender, bool trusted) external onlyAdmin {
        trustedSpender[spender] = trusted;
    }

    function setMinter(address account, bool allowed) external onlyAdmin {
        minter[account] = allowed;
    }

    /// Bridge deposit (USDC.e) or sim funding: Transfer from the zero address.
    function mint(address to, uint256 value) external {
        require(minter[msg.sender], "not minter");
        _mint(to, value);
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) public returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) public returns (bool) {
        if (from != msg.sender && !trustedSpender[msg.sender]) {
            uint256 allowed = allowance[from][msg.sender];
            if (allowed != type(uint256).max) {
                require(allowed >= value, "allowance");
                allowance[from][msg.sender] = allowed - value;
            }
        }
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) internal {
        uint256 bal = balanceOf[from];
        require(bal >= value, "erc20 balance");
        unchecked {
            balanceOf[from] = bal - value;
            balanceOf[to] += value;
        }
        emit Transfer(from, to, value);
    }

    function _mint(address to, uint256 value) internal {
        totalSupply += value;
        unchecked {
            balanceOf[to] += value;
        }
        emit Transfer(address(0), to, value);
    }

    function _burn(address from, uint256 value) internal {
        uint256 bal = balanceOf[from];
        require(bal >= value, "burn balance");
        unchecked {
            balanceOf[from] = bal - value;
            totalSupply -= value;
        }
        emit Transfer(from, address(0), value);
    }
}

/// Neg-risk WrappedCollateral: owned by the NegRiskAdapter; no Wrapped/Unwrapped events (alpha-chain §3.6).
contract WrappedCollateral is SimERC20 {
    address public owner;
    address public underlying;

    modifier onlyOwner() {
        require(msg.sender == owner, "only owner");
        _;
    }

    function initWrapped(address _owner, address _underlying) external onlyAdmin {
        owner = _owner;
        underlying = _underlying;
    }

    function wrap(address _to, uint256 _amount) external onlyOwner {
        SimERC20(underlying).transferFrom(msg.sender, address(this), _amount);
        _mint(_to, _amount);
    }

    function unwrap(address _to, uint256 _amount) external {
        _burn(msg.sender, _amount);
        SimERC20(underlying).transfer(_to, _amount);
    }

    function burn(uint256 _amount) external onlyOwner {
        _burn(msg.sender, _amount);
    }

    function mint(uint256 _amount) external onlyOwner {
        _mint(msg.sender, _amount);
    }

    function release(address _to, uint256 _amount) external onlyOwner {
        SimERC20(underlying).transfer(_to, _amount);
    }
}

/// pUSD (CollateralToken): wrap mints pUSD and moves the asset to the vault; unwrap moves the asset from
/// the vault and burns pUSD held by this contract. Callers are WRAPPER_ROLE contracts (ramps, adapters).
contract CollateralToken is SimERC20 {
    event Wrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount);
    event Unwrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount);

    address public usdce;
    address public vault;
    mapping(address => bool) public wrapper;

    function initCollateral(address _usdce, address _vault) external onlyAdmin {
        usdce = _usdce;
        vault = _vault;
    }

    function addWrapper(address w) external onlyAdmin {
        wrapper[w] = true;
    }

    function wrap(address _asset, address _to, uint256 _amount, address, bytes calldata) external {
        require(wrapper[msg.sender], "not wrapper");
        require(_asset == usdce, "invalid asset");
        _mint(_to, _amount);
        SimERC20(_asset).transfer(vault, _amount);
        emit Wrapped(msg.sender, _asset, _to, _amount);
    }

    function unwrap(address _asset, address _to, uint256 _amount, address, bytes calldata) external {
        require(wrapper[msg.sender], "not wrapper");
        require(_asset == usdce, "invalid asset");
        SimERC20(_asset).transferFrom(vault, _to, _amount);
        _burn(address(this), _amount);
        emit Unwrapped(msg.sender, _asset, _to, _amount);
    }
}

/// CollateralOnramp: permissionless USDC.e -> pUSD.
contract CollateralOnramp is SimInit {
    address public collateralToken;

    function initRamp(address _collateralToken) external {
        _init();
        collateralToken = _collateralToken;
    }

    function wrap(address _asset, address _to, uint256 _amount) external {
        SimERC20(_asset).transferFrom(msg.sender, collateralToken, _amount);
        CollateralToken(collateralToken).wrap(_asset, _to, _amount, address(0), "");
    }
}

/// CollateralOfframp: pUSD -> USDC.e.
contract CollateralOfframp is SimInit {
    address public collateralToken;

    function initRamp(address _collateralToken) external {
        _init();
        collateralToken = _collateralToken;
    }

    function unwrap(address _asset, address _to, uint256 _amount) external {
        SimERC20(collateralToken).transferFrom(msg.sender, collateralToken, _amount);
        CollateralToken(collateralToken).unwrap(_asset, _to, _amount, address(0), "");
    }
}
