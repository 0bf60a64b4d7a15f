// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {SimInit, SimERC20} from "./Tokens.sol";

interface IOutcomeTokens {
    function balanceOf(address owner, uint256 id) external view returns (uint256);
    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external;
    function splitPosition(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external;
    function mergePositions(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external;
}

// CTFExchange V1 (and, with `ctf` = the NegRiskAdapter, NegRiskCtfExchange V1), after
// Polymarket/ctf-exchange Trading.sol: per maker, the maker's making asset comes to the exchange, a MINT or
// MERGE runs on the CTF when the maker is on the complement token, the proceeds less the fee go to the
// maker, the fee goes to the operator (FeeCharged) and OrderFilled(maker, taker = the taker order's maker)
// is emitted; then the taker gets what the exchange holds, pays its fee, gets any leftover back, and
// OrderFilled(taker = exchange) and OrdersMatched close the match. Fees follow CalculatorHelper.
//
// Signatures are not checked: the operator passes orders as packed words (see sim/chain/orders.ts):
//   match  = [makerCount, takerOrder(8 words), makerOrder(8 words) x makerCount]
//   order  = [salt, maker, tokenId, makerAmount, takerAmount, side | feeRateBps << 8, fillAmount, operatorFee]
// The order hash is keccak256(abi.encode(ORDER_TYPEHASH, salt, maker, tokenId, makerAmount, takerAmount,
// side, feeRateBps)). operatorFee is read only by the FeeModule.
contract CTFExchange is SimInit {
    event OrderFilled(
        bytes32 indexed orderHash,
        address indexed maker,
        address indexed taker,
        uint256 makerAssetId,
        uint256 takerAssetId,
        uint256 makerAmountFilled,
        uint256 takerAmountFilled,
        uint256 fee
    );
    event OrdersMatched(
        bytes32 indexed takerOrderHash,
        address indexed takerOrderMaker,
        uint256 makerAssetId,
        uint256 takerAssetId,
        uint256 makerAmountFilled,
        uint256 takerAmountFilled
    );
    event FeeCharged(address indexed receiver, uint256 tokenId, uint256 amount);
    event TokenRegistered(uint256 indexed token0, uint256 indexed token1, bytes32 indexed conditionId);

    bytes32 public constant ORDER_TYPEHASH = keccak256(
        "Order(uint256 salt,address maker,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint256 feeRateBps)"
    );
    uint256 internal constant ONE = 1e18;
    uint256 internal constant BPS = 10_000;
    uint256 internal constant ORDER_WORDS = 8;

    struct Order {
        uint256 salt;
        address maker;
        uint256 tokenId;
        uint256 makerAmount;
        uint256 takerAmount;
        uint256 side;
        uint256 feeRateBps;
        uint256 fill;
    }

    struct TokenInfo {
        uint256 complement;
        bytes32 conditionId;
    }

    SimERC20 public collateral;
    IOutcomeTokens public ctf;
    mapping(address => bool) public operators;
    mapping(uint256 => TokenInfo) public registry;

    modifier onlyOperator() {
        require(operators[msg.sender], "not operator");
        _;
    }

    function initExchange(address _collateral, address _ctf) external {
        _init();
        collateral = SimERC20(_collateral);
        ctf = IOutcomeTokens(_ctf);
        operators[msg.sender] = true;
    }

    function addOperator(address op) external onlyAdmin {
        operators[op] = true;
    }

    function registerToken(uint256 token, uint256 complement, bytes32 conditionId) external onlyAdmin {
        require(token != complement && token != 0 && complement != 0, "invalid token id");
        require(registry[token].complement == 0 && registry[complement].complement == 0, "already registered");
        registry[token] = TokenInfo(complement, conditionId);
        registry[complement] = TokenInfo(token, conditionId);
        emit TokenRegistered(token, complement, conditionId);
        emit TokenRegistered(complement, token, conditionId);
    }

    // ---------------------------------------------------------------- entry points

    /// One match; returns the taker's then each maker's order hash, exchange fee and fee asset.
    function matchOrders(uint256[] calldata w)
        external
        onlyOperator
        returns (bytes32[] memory hashes, uint256[] memory fees, uint256[] memory feeAssets)
    {
        uint256 n = w[0];
        hashes = new bytes32[](n + 1);
        fees = new uint256[](n + 1);
        feeAssets = new uint256[](n + 1);
        _matchOne(w, 0, hashes, fees, feeAssets);
    }

    /// Batch driver: many matches in one transaction, each emitting exactly what matchOrders emits.
    function matchBatch(uint256[] calldata w) external onlyOperator {
        uint256 p = 0;
        bytes32[] memory none = new bytes32[](0);
        uint256[] memory noneU = new uint256[](0);
        while (p < w.length) {
            p = _matchOne(w, p, none, noneU, noneU);
        }
    }

    // ---------------------------------------------------------------- matching

    function _read(uint256[] calldata w, uint256 p) internal pure returns (Order memory o) {
        o.salt = w[p];
        o.maker = address(uint160(w[p + 1]));
        o.tokenId = w[p + 2];
        o.makerAmount = w[p + 3];
        o.takerAmount = w[p + 4];
        o.side = w[p + 5] & 0xff;
        o.feeRateBps = w[p + 5] >> 8;
        o.fill = w[p + 6];
        require(o.side <= 1 && o.makerAmount > 0 && o.takerAmount > 0, "bad order");
    }

    function hashOrder(Order memory o) public pure returns (bytes32) {
        return keccak256(
            abi.encode(ORDER_TYPEHASH, o.salt, o.maker, o.tokenId, o.makerAmount, o.takerAmount, o.side, o.feeRateBps)
        );
    }

    function _assets(Order memory o) internal pure returns (uint256 makerAssetId, uint256 takerAssetId) {
        if (o.side == 0) return (0, o.tokenId);
        return (o.tokenId, 0);
    }

    function _matchOne(
        uint256[] calldata w,
        uint256 p,
        bytes32[] memory hashes,
        uint256[] memory fees,
        uint256[] memory feeAssets
    ) internal returns (uint256) {
        uint256 n = w[p];
        Order memory t = _read(w, p + 1);
        bytes32 tHash = hashOrder(t);
        (uint256 tMakerAsset, uint256 tTakerAsset) = _assets(t);
        uint256 making = t.fill;
        uint256 minTaking = (making * t.takerAmount) / t.makerAmount;

        _transfer(t.maker, address(this), tMakerAsset, making);

        uint256 q = p + 1 + ORDER_WORDS;
        for (uint256 i = 0; i < n; i++) {
            Order memory m = _read(w, q);
            (bytes32 h, uint256 fee, uint256 feeAsset) = _fillMaker(t, m);
            if (hashes.length > 0) {
                hashes[i + 1] = h;
                fees[i + 1] = fee;
                feeAssets[i + 1] = feeAsset;
            }
            q += ORDER_WORDS;
        }

        uint256 taking = _balance(tTakerAsset);
        require(taking >= minTaking, "too little tokens received");
        uint256 tFee = _fee(t.feeRateBps, t.side == 0 ? taking : making, making, taking, t.side);
        _transfer(address(this), t.maker, tTakerAsset, taking - tFee);
        _chargeFee(tTakerAsset, tFee);
        uint256 refund = _balance(tMakerAsset);
        if (refund > 0) _transfer(address(this), t.maker, tMakerAsset, refund);
        emit OrderFilled(tHash, t.maker, address(this), tMakerAsset, tTakerAsset, making, taking, tFee);
        emit OrdersMatched(tHash, t.maker, tMakerAsset, tTakerAsset, making, taking);
        if (hashes.length > 0) {
            hashes[0] = tHash;
            fees[0] = tFee;
            feeAssets[0] = tTakerAsset;
        }
        return q;
    }

    function _fillMaker(Order memory t, Order memory m) internal returns (bytes32 h, uint256 fee, uint256 feeAsset) {
        // COMPLEMENTARY = 0, MINT = 1 (BUY vs BUY), MERGE = 2 (SELL vs SELL)
        uint256 matchType = t.side == m.side ? t.side + 1 : 0;
        TokenInfo memory info = registry[t.tokenId];
        require(info.complement != 0, "token not registered");
        if (matchType == 0) require(m.tokenId == t.tokenId, "mismatched token ids");
        else require(m.tokenId == info.complement, "not the complement token");

        uint256 making = m.fill;
        uint256 taking = (making * m.takerAmount) / m.makerAmount;
        h = hashOrder(m);
        fee = _fee(m.feeRateBps, m.side == 0 ? taking : making, m.makerAmount, m.takerAmount, m.side);
        (uint256 mMakerAsset, uint256 mTakerAsset) = _assets(m);
        feeAsset = mTakerAsset;

        _transfer(m.maker, address(this), mMakerAsset, making);
        if (matchType == 1) _mint(info.conditionId, taking);
        else if (matchType == 2) _merge(info.conditionId, making);
        require(_balance(mTakerAsset) >= taking, "too little tokens received");
        _transfer(address(this), m.maker, mTakerAsset, taking - fee);
        _chargeFee(mTakerAsset, fee);
        emit OrderFilled(h, m.maker, t.maker, mMakerAsset, mTakerAsset, making, taking, fee);
    }

    /// CalculatorHelper.calculateFee: BUY fee in outcome tokens, SELL fee in collateral, symmetric in price.
    function _fee(uint256 feeRateBps, uint256 outcomeTokens, uint256 makerAmount, uint256 takerAmount, uint256 side)
        internal
        pure
        returns (uint256 fee)
    {
        if (feeRateBps == 0) return 0;
        uint256 price = side == 0 ? (makerAmount * ONE) / takerAmount : (takerAmount * ONE) / makerAmount;
        if (price == 0 || price > ONE) return 0;
        uint256 m = price < ONE - price ? price : ONE - price;
        if (side == 0) fee = (feeRateBps * m * outcomeTokens) / (price * BPS);
        else fee = (feeRateBps * m * outcomeTokens) / (BPS * ONE);
    }

    function _chargeFee(uint256 tokenId, uint256 fee) internal {
        if (fee > 0) {
            _transfer(address(this), msg.sender, tokenId, fee);
            emit FeeCharged(msg.sender, tokenId, fee);
        }
    }

    // ---------------------------------------------------------------- asset operations

    function _partition() internal pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = 1;
        p[1] = 2;
    }

    function _balance(uint256 id) internal view returns (uint256) {
        return id == 0 ? collateral.balanceOf(address(this)) : ctf.balanceOf(address(this), id);
    }

    function _transfer(address from, address to, uint256 id, uint256 value) internal {
        if (value == 0) return;
        if (id == 0) {
            if (from == address(this)) collateral.transfer(to, value);
            else collateral.transferFrom(from, to, value);
        } else {
            ctf.safeTransferFrom(from, to, id, value, "");
        }
    }

    function _mint(bytes32 conditionId, uint256 amount) internal {
        ctf.splitPosition(address(collateral), bytes32(0), conditionId, _partition(), amount);
    }

    function _merge(bytes32 conditionId, uint256 amount) internal {
        ctf.mergePositions(address(collateral), bytes32(0), conditionId, _partition(), amount);
    }
}

interface IFeeModuleExchange {
    function matchOrders(uint256[] calldata w)
        external
        returns (bytes32[] memory hashes, uint256[] memory fees, uint256[] memory feeAssets);
}

interface IToken1155 {
    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external;
}

// FeeModule (2025 code, exchange-fee-module): the exchange's operator proxy. It calls matchOrders, so the
// exchange charges its fees to this contract, then refunds each order's maker the part of the exchange fee
// above the operator's fee (word 7 of the order): FeeRefunded(orderHash, to, id, refund, feeCharged).
contract FeeModule is SimInit {
    event FeeRefunded(
        bytes32 indexed orderHash, address indexed to, uint256 id, uint256 refund, uint256 indexed feeCharged
    );

    IFeeModuleExchange public exchange;
    SimERC20 public collateral;
    IToken1155 public ctf;
    mapping(address => bool) public admins;

    function initFeeModule(address _exchange, address _collateral, address _ctf) external {
        _init();
        exchange = IFeeModuleExchange(_exchange);
        collateral = SimERC20(_collateral);
        ctf = IToken1155(_ctf);
        admins[msg.sender] = true;
    }

    function addAdmin(address a) external onlyAdmin {
        admins[a] = true;
    }

    /// Batch driver: each match is a separate exchange.matchOrders call followed by its refunds.
    function matchBatch(uint256[] calldata w) external {
        require(admins[msg.sender], "not admin");
        uint256 p = 0;
        while (p < w.length) {
            uint256 n = w[p];
            uint256 end = p + 1 + 8 * (n + 1);
            (bytes32[] memory hashes, uint256[] memory fees, uint256[] memory feeAssets) =
                exchange.matchOrders(w[p:end]);
            for (uint256 k = 0; k <= n; k++) {
                uint256 rec = p + 1 + 8 * k;
                uint256 operatorFee = w[rec + 7];
                if (fees[k] > operatorFee) {
                    uint256 refund = fees[k] - operatorFee;
                    address to = address(uint160(w[rec + 1]));
                    if (feeAssets[k] == 0) collateral.transfer(to, refund);
                    else ctf.safeTransferFrom(address(this), to, feeAssets[k], refund, "");
                    emit FeeRefunded(hashes[k], to, feeAssets[k], refund, operatorFee);
                }
            }
            p = end;
        }
    }
}
