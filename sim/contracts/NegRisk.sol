// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {SimInit, SimERC20, WrappedCollateral} from "./Tokens.sol";
import {ConditionalTokens} from "./ConditionalTokens.sol";

// NegRiskAdapter and NegRiskOperator, after Polymarket/neg-risk-ctf-adapter: the same events, ids
// (marketId = keccak256(abi.encode(oracle, feeBips, data)) with the last byte zeroed, questionId =
// marketId + index), and the same token movements for split, merge, redeem and convert.
contract NegRiskAdapter is SimInit {
    event MarketPrepared(bytes32 indexed marketId, address indexed oracle, uint256 feeBips, bytes data);
    event QuestionPrepared(bytes32 indexed marketId, bytes32 indexed questionId, uint256 index, bytes data);
    event OutcomeReported(bytes32 indexed marketId, bytes32 indexed questionId, bool outcome);
    event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount);
    event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount);
    event PositionsConverted(
        address indexed stakeholder, bytes32 indexed marketId, uint256 indexed indexSet, uint256 amount
    );
    event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout);

    address public constant NO_TOKEN_BURN_ADDRESS = address(bytes20(bytes32(keccak256("NO_TOKEN_BURN_ADDRESS"))));
    uint256 public constant FEE_DENOMINATOR = 10_000;

    struct Market {
        address oracle;
        uint8 questionCount;
        uint16 feeBips;
        bool determined;
    }

    ConditionalTokens public ctf;
    SimERC20 public col;
    WrappedCollateral public wcol;
    address public vault;
    mapping(address => bool) public admins;
    mapping(bytes32 => Market) internal markets;

    function initAdapter(address _ctf, address _col, address _wcol, address _vault) external {
        _init();
        ctf = ConditionalTokens(_ctf);
        col = SimERC20(_col);
        wcol = WrappedCollateral(_wcol);
        vault = _vault;
        admins[msg.sender] = true;
    }

    function addAdmin(address a) external onlyAdmin {
        admins[a] = true;
    }

    // ---------------------------------------------------------------- ids

    function getConditionId(bytes32 _questionId) public view returns (bytes32) {
        return ctf.getConditionId(address(this), _questionId, 2);
    }

    function getPositionId(bytes32 _questionId, bool _outcome) public view returns (uint256) {
        bytes32 collectionId = ctf.getCollectionId(bytes32(0), getConditionId(_questionId), _outcome ? 1 : 2);
        return ctf.getPositionId(address(wcol), collectionId);
    }

    function _positionIds(bytes32 _conditionId) internal view returns (uint256[] memory ids) {
        ids = new uint256[](2);
        ids[0] = ctf.getPositionId(address(wcol), ctf.getCollectionId(bytes32(0), _conditionId, 1));
        ids[1] = ctf.getPositionId(address(wcol), ctf.getCollectionId(bytes32(0), _conditionId, 2));
    }

    function _values(uint256 n, uint256 amount) internal pure returns (uint256[] memory v) {
        v = new uint256[](n);
        for (uint256 i = 0; i < n; i++) {
            v[i] = amount;
        }
    }

    function _partition() internal pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = 1;
        p[1] = 2;
    }

    function getQuestionCount(bytes32 _marketId) external view returns (uint256) {
        return markets[_marketId].questionCount;
    }

    function getFeeBips(bytes32 _marketId) external view returns (uint256) {
        return markets[_marketId].feeBips;
    }

    function getOracle(bytes32 _marketId) external view returns (address) {
        return markets[_marketId].oracle;
    }

    // ---------------------------------------------------------------- split / merge / redeem

    function splitPosition(address _collateralToken, bytes32, bytes32 _conditionId, uint256[] calldata, uint256 _amount)
        external
    {
        require(_collateralToken == address(col), "unexpected collateral");
        splitPosition(_conditionId, _amount);
    }

    function splitPosition(bytes32 _conditionId, uint256 _amount) public {
        col.transferFrom(msg.sender, address(this), _amount);
        wcol.wrap(address(this), _amount);
        ctf.splitPosition(address(wcol), bytes32(0), _conditionId, _partition(), _amount);
        ctf.safeBatchTransferFrom(address(this), msg.sender, _positionIds(_conditionId), _values(2, _amount), "");
        emit PositionSplit(msg.sender, _conditionId, _amount);
    }

    function mergePositions(address _collateralToken, bytes32, bytes32 _conditionId, uint256[] calldata, uint256 _amount)
        external
    {
        require(_collateralToken == address(col), "unexpected collateral");
        mergePositions(_conditionId, _amount);
    }

    function mergePositions(bytes32 _conditionId, uint256 _amount) public {
        ctf.safeBatchTransferFrom(msg.sender, address(this), _positionIds(_conditionId), _values(2, _amount), "");
        ctf.mergePositions(address(wcol), bytes32(0), _conditionId, _partition(), _amount);
        wcol.unwrap(msg.sender, _amount);
        emit PositionsMerge(msg.sender, _conditionId, _amount);
    }

    function redeemPositions(bytes32 _conditionId, uint256[] calldata _amounts) public {
        ctf.safeBatchTransferFrom(msg.sender, address(this), _positionIds(_conditionId), _amounts, "");
        ctf.redeemPositions(address(wcol), bytes32(0), _conditionId, _partition());
        uint256 payout = wcol.balanceOf(address(this));
        if (payout > 0) wcol.unwrap(msg.sender, payout);
        emit PayoutRedemption(msg.sender, _conditionId, _amounts, payout);
    }

    // ---------------------------------------------------------------- ERC-1155 pass-through (V1 neg-risk exchange)

    function balanceOf(address _owner, uint256 _id) external view returns (uint256) {
        return ctf.balanceOf(_owner, _id);
    }

    function safeTransferFrom(address _from, address _to, uint256 _id, uint256 _value, bytes calldata _data) external {
        require(admins[msg.sender], "not admin");
        ctf.safeTransferFrom(_from, _to, _id, _value, _data);
    }

    // ---------------------------------------------------------------- convert

    function convertPositions(bytes32 _marketId, uint256 _indexSet, uint256 _amount) external {
        Market memory md = markets[_marketId];
        uint256 questionCount = md.questionCount;
        require(md.oracle != address(0), "market not prepared");
        require(questionCount > 1, "no convertible positions");
        require(_indexSet != 0 && (_indexSet >> questionCount) == 0, "invalid index set");
        if (_amount == 0) return;

        uint256 noPositionCount;
        for (uint256 i = 0; i < questionCount; i++) {
            if ((_indexSet & (1 << i)) > 0) ++noPositionCount;
        }
        uint256 yesPositionCount = questionCount - noPositionCount;
        uint256[] memory noPositionIds = new uint256[](noPositionCount);
        uint256[] memory yesPositionIds = new uint256[](yesPositionCount);
        uint256[] memory accumulatedNoPositionIds = new uint256[](yesPositionCount);

        wcol.mint(yesPositionCount * _amount);
        {
            uint256 noIndex;
            uint256 yesIndex;
            for (uint256 index = 0; index < questionCount; index++) {
                bytes32 questionId = bytes32(uint256(_marketId) | index);
                if ((_indexSet & (1 << index)) > 0) {
                    noPositionIds[noIndex++] = getPositionId(questionId, false);
                } else {
                    yesPositionIds[yesIndex] = getPositionId(questionId, true);
                    accumulatedNoPositionIds[yesIndex] = getPositionId(questionId, false);
                    ctf.splitPosition(address(wcol), bytes32(0), getConditionId(questionId), _partition(), _amount);
                    yesIndex++;
                }
            }
        }
        ctf.safeBatchTransferFrom(
            msg.sender, NO_TOKEN_BURN_ADDRESS, noPositionIds, _values(noPositionIds.length, _amount), ""
        );
        if (yesPositionCount > 0) {
            ctf.safeBatchTransferFrom(
                address(this), NO_TOKEN_BURN_ADDRESS, accumulatedNoPositionIds, _values(yesPositionCount, _amount), ""
            );
        }

        uint256 feeAmount = (_amount * md.feeBips) / FEE_DENOMINATOR;
        uint256 amountOut = _amount - feeAmount;
        if (noPositionIds.length > 1) {
            uint256 multiplier = noPositionIds.length - 1;
            if (feeAmount > 0) wcol.release(vault, multiplier * feeAmount);
            wcol.release(msg.sender, multiplier * amountOut);
        }
        if (yesPositionIds.length > 0) {
            if (feeAmount > 0) {
                ctf.safeBatchTransferFrom(
                    address(this), vault, yesPositionIds, _values(yesPositionIds.length, feeAmount), ""
                );
            }
            ctf.safeBatchTransferFrom(
                address(this), msg.sender, yesPositionIds, _values(yesPositionIds.length, amountOut), ""
            );
        }
        emit PositionsConverted(msg.sender, _marketId, _indexSet, _amount);
    }

    // ---------------------------------------------------------------- markets and questions

    function prepareMarket(uint256 _feeBips, bytes calldata _metadata) external returns (bytes32 marketId) {
        require(_feeBips <= FEE_DENOMINATOR, "invalid fee");
        marketId = bytes32(uint256(keccak256(abi.encode(msg.sender, _feeBips, _metadata))) & ~uint256(0xff));
        require(markets[marketId].oracle == address(0), "market already prepared");
        markets[marketId] = Market({oracle: msg.sender, questionCount: 0, feeBips: uint16(_feeBips), determined: false});
        emit MarketPrepared(marketId, msg.sender, _feeBips, _metadata);
    }

    function prepareQuestion(bytes32 _marketId, bytes calldata _metadata) external returns (bytes32 questionId) {
        Market storage md = markets[_marketId];
        require(md.oracle != address(0), "market not prepared");
        require(md.oracle == msg.sender, "only oracle");
        uint256 index = md.questionCount;
        require(index < 255, "too many questions");
        md.questionCount = uint8(index + 1);
        questionId = bytes32(uint256(_marketId) | index);
        bytes32 conditionId = getConditionId(questionId);
        if (ctf.getOutcomeSlotCount(conditionId) == 0) ctf.prepareCondition(address(this), questionId, 2);
        emit QuestionPrepared(_marketId, questionId, index, _metadata);
    }

    function reportOutcome(bytes32 _questionId, bool _outcome) external {
        bytes32 marketId = bytes32(uint256(_questionId) & ~uint256(0xff));
        Market storage md = markets[marketId];
        require(md.oracle == msg.sender, "only oracle");
        if (_outcome) {
            require(!md.determined, "market already determined");
            md.determined = true;
        }
        uint256[] memory payouts = new uint256[](2);
        payouts[0] = _outcome ? 1 : 0;
        payouts[1] = _outcome ? 0 : 1;
        ctf.reportPayouts(_questionId, payouts);
        emit OutcomeReported(marketId, _questionId, _outcome);
    }
}

interface IUmaInitialize {
    function initialize(bytes calldata, address, uint256, uint256, uint256) external returns (bytes32);
}

/// NegRiskOperator: the oracle of neg-risk markets and the `ctf` of the neg-risk UMA adapter. The UMA
/// questionID is the operator's requestId; results are reported, then resolved after a delay.
contract NegRiskOperator is SimInit {
    event MarketPrepared(bytes32 indexed marketId, uint256 feeBips, bytes data);
    event QuestionPrepared(
        bytes32 indexed marketId, bytes32 indexed questionId, bytes32 indexed requestId, uint256 questionIndex, bytes data
    );
    event QuestionReported(bytes32 indexed questionId, bytes32 requestId, bool result);
    event QuestionResolved(bytes32 indexed questionId, bool result);

    uint256 public constant DELAY_PERIOD = 1 hours;

    NegRiskAdapter public nrAdapter;
    address public oracle;
    mapping(bytes32 => bytes32) public questionIds;
    mapping(bytes32 => bool) public results;
    mapping(bytes32 => uint256) public reportedAt;

    function initOperator(address _nrAdapter) external {
        _init();
        nrAdapter = NegRiskAdapter(_nrAdapter);
    }

    function setOracle(address _oracle) external onlyAdmin {
        oracle = _oracle;
    }

    function prepareMarket(uint256 _feeBips, bytes calldata _data) external onlyAdmin returns (bytes32 marketId) {
        marketId = nrAdapter.prepareMarket(_feeBips, _data);
        emit MarketPrepared(marketId, _feeBips, _data);
    }

    function prepareQuestion(bytes32 _marketId, bytes calldata _data, bytes32 _requestId)
        external
        onlyAdmin
        returns (bytes32 questionId)
    {
        require(questionIds[_requestId] == bytes32(0), "question already prepared");
        questionId = nrAdapter.prepareQuestion(_marketId, _data);
        questionIds[_requestId] = questionId;
        emit QuestionPrepared(_marketId, questionId, _requestId, uint256(questionId) & 0xff, _data);
    }

    /// Initializes a neg-risk question on the UMA adapter with the operator as initializer: its questionID
    /// is the requestId later given to prepareQuestion. The reward is paid from the operator's balance.
    function initializeQuestion(
        address _umaAdapter,
        bytes calldata _data,
        address _rewardToken,
        uint256 _reward,
        uint256 _proposalBond,
        uint256 _liveness
    ) external onlyAdmin returns (bytes32) {
        return IUmaInitialize(_umaAdapter).initialize(_data, _rewardToken, _reward, _proposalBond, _liveness);
    }

    /// Called by the UMA adapter's initialize(); the operator prepares conditions itself.
    function prepareCondition(address, bytes32, uint256) external {}

    function reportPayouts(bytes32 _requestId, uint256[] calldata _payouts) external {
        require(msg.sender == oracle, "only oracle");
        require(_payouts.length == 2 && _payouts[0] + _payouts[1] == 1, "invalid payouts");
        bytes32 questionId = questionIds[_requestId];
        require(questionId != bytes32(0), "invalid request id");
        require(reportedAt[questionId] == 0, "already reported");
        bool result = _payouts[0] == 1;
        results[questionId] = result;
        reportedAt[questionId] = block.timestamp;
        emit QuestionReported(questionId, _requestId, result);
    }

    function resolveQuestion(bytes32 _questionId) external {
        uint256 at = reportedAt[_questionId];
        require(at != 0, "result not available");
        require(block.timestamp >= at + DELAY_PERIOD, "delay period not over");
        reportedAt[_questionId] = type(uint256).max;
        bool result = results[_questionId];
        nrAdapter.reportOutcome(_questionId, result);
        emit QuestionResolved(_questionId, result);
    }
}
